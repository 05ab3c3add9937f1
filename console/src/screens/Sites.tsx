import { useEffect, useMemo, useState } from 'preact/hooks';
import { hashKey, type QueryKey } from '@tanstack/query-core';
import { api, type Basis, data, dataWithBasis, type Params, type Read, type Schemas } from '../api.ts';
import { latestByAsset, subscribe, type LiveTelemetryRecord } from '../live.ts';
import { addDays, clock, dayText, num, when } from '../format.ts';
import { Chart, DayField, Empty, ErrorNote, Loading, Section, type Series as ChartSeries } from '../ui.tsx';
import { queryClient, refetchSoon, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { msg } from '../messages.ts';

const sm = msg.sites;

type Asset = Schemas['Asset'];
type Latest = LiveTelemetryRecord;
type History = Read<'/api/telemetry/assets/{asset_type}/{asset_id}/history'>;
type HistoryType = Params<'/api/telemetry/assets/{asset_type}/{asset_id}/history'>['path']['asset_type'];
type HistoryQuery = NonNullable<Params<'/api/telemetry/assets/{asset_type}/{asset_id}/history'>['query']>;
type Range = NonNullable<HistoryQuery['range']>;
type Metric = NonNullable<HistoryQuery['metric']>;

/** The service's ranges of the history: each one's window and bucket in seconds (1 h/5 min, 24 h/1 h, 30 d/1 d, 12 w/1 w, 365 d/30 d). */
const RANGES: ReadonlyArray<{ range: Range; spanSeconds: number; bucketSeconds: number }> = [
  { range: 'live', spanSeconds: 3_600, bucketSeconds: 300 },
  { range: 'hourly', spanSeconds: 86_400, bucketSeconds: 3_600 },
  { range: 'daily', spanSeconds: 30 * 86_400, bucketSeconds: 86_400 },
  { range: 'weekly', spanSeconds: 84 * 86_400, bucketSeconds: 7 * 86_400 },
  { range: 'historical', spanSeconds: 365 * 86_400, bucketSeconds: 30 * 86_400 },
];

const HISTORY_TYPES: HistoryType[] = ['solar', 'battery', 'ev', 'heat-pump', 'smart-meter'];
/** The telemetry history's asset type for a registry asset (its free-form type, else its class). */
export function historyType(a: Pick<Asset, 'type' | 'asset_class'>): HistoryType {
  const t = a.type.toLowerCase();
  const known = HISTORY_TYPES.find((h) => h === t);
  if (known) return known;
  const s = `${t} ${a.asset_class ?? ''}`;
  if (/batter|storage/.test(s)) return 'battery';
  if (/pv|solar|inverter/.test(s)) return 'solar';
  if (/ev|charger|vehicle/.test(s)) return 'ev';
  if (/heat/.test(s)) return 'heat-pump';
  return 'smart-meter';
}

export function Sites() {
  const sites = useRead(['sites'], () => data(api().GET('/api/twin/registry/sites')));
  const site = useRoute().params.get('site');
  const chosen = site ?? sites.data?.sites[0]?.site_id ?? null;
  return (
    <div class="grid">
      <Section title={sm.title} id="sites-title">
        {sites.loading && <Loading what={sm.sitesLoading} />}
        <ErrorNote error={sites.error} retry={sites.reload} />
        {sites.data && sites.data.sites.length === 0 && <Empty>{sm.noSites}</Empty>}
        {sites.data && sites.data.sites.length > 0 && (
          <ul class="list" aria-label={sm.title}>
            {sites.data.sites.map((x) => (
              <li key={x.site_id}>
                <button type="button" class="row" aria-pressed={chosen === x.site_id} onClick={() => select({ site: x.site_id, asset: null })}>
                  <strong>{x.site_id}</strong>
                  <span class="small">{sm.siteLine(x.asset_count, when(x.last_reported_at))}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>
      {chosen && (
        <SiteChecks key={`checks-${chosen}`} siteId={chosen} unregistered={sites.data?.sites.find((x) => x.site_id === chosen)?.unregistered_devices ?? 0} />
      )}
      {chosen && <SiteAssets key={chosen} siteId={chosen} />}
    </div>
  );
}

/** The site's topology findings, and the devices reporting for it that are not registered, with a button to register them. */
function SiteChecks({ siteId, unregistered }: { siteId: string; unregistered: number }) {
  const topology = useRead(['topology', siteId], () =>
    data(api().GET('/api/twin/registry/sites/{site_id}/topology', { params: { path: { site_id: siteId } } })),
  );
  const register = useMutation({
    mutationFn: () => data(api().POST('/api/twin/registry/sites/{site_id}/import-devices', { params: { path: { site_id: siteId } }, body: null })),
    onSuccess: () => {
      for (const key of [['sites'], ['assets', siteId], ['topology', siteId]]) void queryClient.invalidateQueries({ queryKey: key, exact: true });
    },
  });
  const findings = topology.data?.findings ?? [];
  const c = sm.checks;
  return (
    <Section title={c.title(siteId)} id="checks-title">
      {topology.loading && <Loading what={c.loading} />}
      <ErrorNote error={topology.error} retry={topology.reload} />
      {topology.data && findings.length === 0 && <Empty>{c.none}</Empty>}
      {findings.length > 0 && (
        <ul class="list" aria-label={c.listLabel(siteId)}>
          {findings.map((f) => (
            <li key={`${f.code}-${f.asset_id ?? ''}`}>
              <span class={`badge ${f.severity === 'error' ? 'sev-critical' : 'sev-warning'}`}>{f.severity}</span> {f.message}
            </li>
          ))}
        </ul>
      )}
      {unregistered > 0 ? (
        <p>
          {c.unregistered(unregistered)}{' '}
          <button type="button" disabled={register.isPending} onClick={() => register.mutate(undefined)}>
            {c.register(unregistered)}
          </button>
        </p>
      ) : (
        <p class="small">{c.noneUnregistered}</p>
      )}
      {register.data && (
        <p role="status">
          {c.registered(
            register.data.imported_count,
            register.data.imported.map((a) => a.asset_id),
            register.data.skipped.map((k) => `${k.asset_id} (${k.reason.replace(/_/g, ' ')})`),
          )}
        </p>
      )}
      <ErrorNote error={register.error} />
    </Section>
  );
}

function SiteAssets({ siteId }: { siteId: string }) {
  const assets = useRead(['assets', siteId], () => data(api().GET('/api/twin/registry/assets', { params: { query: { site_id: siteId } } })));
  const [latest, setLatest] = useState<Record<string, Latest>>(() => Object.fromEntries(latestByAsset));
  const selected = useRoute().params.get('asset');
  useEffect(
    () =>
      subscribe((e) => {
        if (e.event !== 'telemetry') return;
        setLatest((prev) => {
          const next = { ...prev };
          for (const r of e.data.records) if (!next[r.asset_id] || next[r.asset_id].ts <= r.ts) next[r.asset_id] = r;
          return next;
        });
      }),
    [],
  );
  const tree = useMemo(() => {
    const list = assets.data?.assets ?? [];
    const ids = new Set(list.map((a) => a.asset_id));
    const children = new Map<string | null, Asset[]>();
    for (const a of list) {
      const parent = a.parent_asset_id && ids.has(a.parent_asset_id) ? a.parent_asset_id : null;
      children.set(parent, [...(children.get(parent) ?? []), a]);
    }
    return children;
  }, [assets.data]);
  const asset = assets.data?.assets.find((a) => a.asset_id === (selected ?? assets.data?.assets[0]?.asset_id));

  const renderLevel = (parent: string | null, depth: number): preact.JSX.Element | null => {
    const kids = tree.get(parent);
    if (!kids?.length) return null;
    return (
      <ul class="tree" aria-label={depth === 0 ? sm.assetsLabel(siteId) : undefined}>
        {kids.map((a) => {
          const l = latest[a.asset_id];
          return (
            <li key={a.asset_id}>
              <button type="button" class="row" onClick={() => select({ asset: a.asset_id })} aria-pressed={asset?.asset_id === a.asset_id}>
                <span>
                  <strong>{a.name}</strong> <span class="small">{a.asset_class ?? a.type}</span>
                </span>
                <span class={`badge fresh-${a.freshness}`}>{a.freshness}</span>
                <span class="small">{l ? sm.liveAt(num(l.power_kw, 'kW'), clock(l.ts)) : sm.lastReported(when(a.last_reported_at))}</span>
              </button>
              {renderLevel(a.asset_id, depth + 1)}
            </li>
          );
        })}
      </ul>
    );
  };

  return (
    <>
      <Section title={sm.assetsTitle(siteId)} id="assets-title">
        {assets.loading && <Loading what={sm.assetsLoading} />}
        <ErrorNote error={assets.error} retry={assets.reload} />
        {assets.data && assets.data.assets.length === 0 && <Empty>{sm.noAssets}</Empty>}
        {renderLevel(null, 0)}
      </Section>
      {asset && <AssetHistory key={asset.asset_id} asset={asset} live={latest[asset.asset_id] ?? null} />}
      {assets.data && <SitePower key={`power-${siteId}`} siteId={siteId} assets={assets.data.assets} />}
    </>
  );
}

/**
 * The history metric's value in a live sample, read from the canonical fields as the service reads
 * them (src/modules/telemetry/metrics.ts: power signed by direction, state of charge, temperature);
 * null for a metric the live sample does not carry (registers, raw-only keys).
 */
export function liveValue(metric: string, r: Latest): number | null {
  const p = r.power_kw;
  switch (metric) {
    case 'soc':
      return r.soc_pct ?? null;
    case 'generation':
    case 'discharge':
    case 'export':
      return p == null ? null : Math.max(0, -p);
    case 'charge':
    case 'import':
      return p == null ? null : Math.max(0, p);
    case 'flow-temp':
      return r.temp_c ?? null;
    default:
      return null;
  }
}

/** The history with live samples newer than its last point appended (the next fetch replaces them with buckets). */
function withLive(h: History, records: Latest[]): History {
  const series = [...h.series];
  let { count, min, max, latest } = h.summary;
  for (const r of [...records].sort((a, b) => (a.ts < b.ts ? -1 : 1))) {
    const v = liveValue(h.metric, r);
    const last = series.at(-1);
    if (v === null || (last && Date.parse(last.t) >= Date.parse(r.ts))) continue;
    series.push({ t: r.ts, v });
    count++;
    min = min === null ? v : Math.min(min, v);
    max = max === null ? v : Math.max(max, v);
    latest = v;
  }
  return series.length === h.series.length ? h : { ...h, series, summary: { ...h.summary, count, min, max, latest } };
}

/**
 * The metrics drawn together on an asset's chart, by history type (the service's table:
 * src/modules/telemetry/metrics.ts, endpoints.md 4.2): a battery's charge and discharge power
 * with its state of charge on a second axis, a meter's import and export.
 */
export const CHART_METRICS: Record<HistoryType, Metric[]> = {
  solar: ['generation'],
  battery: ['charge', 'discharge', 'soc'],
  ev: ['soc', 'sessions'],
  'heat-pump': ['flow-temp', 'return-temp', 'kwh'],
  'smart-meter': ['import', 'export'],
  'cost-savings': ['savings'],
};
/** The kW metrics of a site's PV and meters, drawn together on the site's power chart. */
const SITE_POWER: Partial<Record<HistoryType, Metric[]>> = { solar: ['generation'], 'smart-meter': ['import', 'export'] };
const COLOURS = ['#1f5fa8', '#b4441b', '#2e7d32', '#6a1b9a', '#8a6d00', '#00695c', '#ad1457', '#455a64'];

/** One metric's answer, with what it is of. */
interface Line {
  assetId: string;
  assetName: string;
  type: HistoryType;
  history: History;
}
interface Lines {
  lines: Line[];
  basis: Basis | null;
}

/**
 * The service's clock as far as its answers tell (each history answer's `to` is its now): a custom
 * range is fetched as the service range that reaches back to its start from the service's now,
 * which is not the browser's when a clock is set (tests, replays) or a machine's clock drifts.
 */
let serviceOffsetMs = 0;
const serviceNow = () => Date.now() + serviceOffsetMs;

/** The service range whose window (ending at the service's now) reaches back to `fromMs`; null if none does. */
export function coveringRange(fromMs: number, nowMs: number): (typeof RANGES)[number] | null {
  return RANGES.filter((r) => r.range !== 'live').find((r) => nowMs - r.spanSeconds * 1000 <= fromMs) ?? null;
}

/** The chosen window of a screen: one of the service's ranges, or a custom span of local days. */
interface Window {
  range: Range;
  bucketSeconds: number;
  /** A custom range's span (seconds, local midnights) and its days, null for the service's ranges. */
  custom: { from: string; to: string; span: [number, number] } | null;
  /** A custom range starting before the oldest window the service keeps. */
  clipped: boolean;
}

/** The window the address asks for (`range`, or `range=custom&from=…&to=…`, days in ISO). */
function useWindow(): Window {
  const p = useRoute().params;
  const asked = p.get('range');
  const from = p.get('from');
  const to = p.get('to');
  if (asked === 'custom' && from && to && /^\d{4}-\d{2}-\d{2}$/.test(from) && /^\d{4}-\d{2}-\d{2}$/.test(to) && from <= to) {
    const span: [number, number] = [localMidnight(from) / 1000, localMidnight(addDays(to, 1)) / 1000];
    const cover = coveringRange(span[0] * 1000, serviceNow());
    const r = cover ?? RANGES[RANGES.length - 1];
    return { range: r.range, bucketSeconds: r.bucketSeconds, custom: { from, to, span }, clipped: !cover };
  }
  const r = RANGES.find((x) => x.range === asked) ?? RANGES[1];
  return { range: r.range, bucketSeconds: r.bucketSeconds, custom: null, clipped: false };
}
const localMidnight = (iso: string) => new Date(`${iso}T00:00:00`).getTime();

/** Reads each (asset, metric) history of one window together, keeping the first answer's data basis. */
function readLines(want: Array<{ asset: Asset; metric: Metric }>, range: Range): Promise<Lines> {
  return Promise.all(
    want.map(async ({ asset, metric }) => {
      const type = historyType(asset);
      const r = await dataWithBasis(
        api().GET('/api/telemetry/assets/{asset_type}/{asset_id}/history', {
          params: { path: { asset_type: type, asset_id: asset.asset_id }, query: { range, metric } },
        }),
      );
      serviceOffsetMs = Date.parse(r.data.to) - Date.now();
      return { line: { assetId: asset.asset_id, assetName: asset.name, type, history: r.data }, basis: r.basis };
    }),
  ).then((all) => ({ lines: all.map((a) => a.line), basis: all.find((a) => a.basis)?.basis ?? null }));
}

/**
 * The lines on one time axis: the union of their times, each line null where it has no point; its
 * first unit on the left axis and a second one on the right. Points outside `span` are left out.
 */
function merge(lines: Line[], label: (l: Line) => string, span: [number, number] | null) {
  const inSpan = (t: number) => !span || (t >= span[0] && t < span[1]);
  const times = [...new Set(lines.flatMap((l) => l.history.series.map((p) => Date.parse(p.t) / 1000)).filter(inSpan))].sort((a, b) => a - b);
  if (times.length === 0) return null;
  const at = new Map(times.map((t, i) => [t, i]));
  const units = [...new Set(lines.map((l) => l.history.unit))];
  const series: ChartSeries[] = lines.map((l, i) => {
    const values: Array<number | null> = times.map(() => null);
    for (const p of l.history.series) {
      const k = at.get(Date.parse(p.t) / 1000);
      if (k !== undefined) values[k] = p.v;
    }
    const second = units.indexOf(l.history.unit) === 1;
    return { label: label(l), values, color: COLOURS[i % COLOURS.length], unit: l.history.unit, ...(second && { scale: l.history.unit }) };
  });
  return { x: times, series, unit: units[0], unit2: units[1] };
}

/** The least, greatest and last of a line's points: the service's summary, or within a custom span those of its buckets there. */
function figures(l: Line, span: [number, number] | null): { min: number | null; max: number | null; latest: number | null } {
  if (!span) return l.history.summary;
  const v = l.history.series.filter((p) => Date.parse(p.t) / 1000 >= span[0] && Date.parse(p.t) / 1000 < span[1]).map((p) => p.v);
  return v.length ? { min: Math.min(...v), max: Math.max(...v), latest: v[v.length - 1] } : { min: null, max: null, latest: null };
}

/** A metric's name in the legend, with its unit. */
const metricLabel = (l: Line) => sm.metric(l.history.metric, l.history.unit);

/** The range buttons, and a custom span of days (the console's own dd/mm/yyyy fields). */
function RangePicker({ win }: { win: Window }) {
  const today = new Date(serviceNow());
  const todayIso = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`;
  const from = win.custom?.from ?? addDays(todayIso, -6);
  const to = win.custom?.to ?? todayIso;
  return (
    <>
      <div class="tabs" role="group" aria-label={sm.rangeGroup}>
        {RANGES.map((r) => (
          <button
            key={r.range}
            type="button"
            aria-pressed={!win.custom && win.range === r.range}
            onClick={() => select({ range: r.range ?? null, from: null, to: null })}
          >
            {sm.range[r.range ?? 'hourly']}
          </button>
        ))}
        <button type="button" aria-pressed={!!win.custom} onClick={() => select({ range: 'custom', from, to })}>
          {sm.custom}
        </button>
      </div>
      {win.custom && (
        <div class="toolbar">
          <label for="range-from">{sm.from}</label>
          <DayField id="range-from" value={from} onChange={(d) => select({ range: 'custom', from: d, to: d > to ? d : to })} />
          <label for="range-to">{sm.to}</label>
          <DayField id="range-to" value={to} onChange={(d) => select({ range: 'custom', to: d, from: d < from ? d : from })} />
        </div>
      )}
    </>
  );
}

/** What a window's chart stands on: its buckets, and for a custom range the service range it is read from. */
function WindowNote({ win, bucket }: { win: Window; bucket: string }) {
  if (!win.custom) return null;
  return (
    <p class="small">
      {sm.customNote(dayText(win.custom.from), dayText(win.custom.to), bucket)}
      {win.clipped && ` ${sm.clipped}`}
    </p>
  );
}

/** Live samples go on a chart at once from the event; its reads are refetched at most every few seconds. */
function useLiveLines(key: QueryKey, assetIds: string[]) {
  const ids = assetIds.join(',');
  useEffect(
    () =>
      subscribe((e) => {
        if (e.event !== 'telemetry') return;
        const mine = e.data.records.filter((r) => assetIds.includes(r.asset_id));
        if (!mine.length) return;
        queryClient.setQueryData<Lines>(
          key,
          (d) =>
            d && {
              ...d,
              lines: d.lines.map((l) => ({
                ...l,
                history: withLive(
                  l.history,
                  mine.filter((r) => r.asset_id === l.assetId),
                ),
              })),
            },
        );
        refetchSoon(key);
      }),
    [hashKey(key), ids],
  );
}

/** The site's PV generation and meter import and export together, in kW, over the range chosen for the asset above. */
function SitePower({ siteId, assets }: { siteId: string; assets: Asset[] }) {
  const win = useWindow();
  const want = assets.flatMap((asset) => (SITE_POWER[historyType(asset)] ?? []).map((metric) => ({ asset, metric })));
  const key = ['site-power', siteId, win.range, want.map((w) => `${w.asset.asset_id}/${w.metric}`).join(',')];
  const read = useRead(key, () => readLines(want, win.range), { enabled: want.length > 0 });
  useLiveLines(key, [...new Set(want.map((w) => w.asset.asset_id))]);
  const chart = useMemo(
    () => read.data && merge(read.data.lines, (l) => sm.assetMetric(l.assetName, metricLabel(l)), win.custom?.span ?? null),
    [read.data, win.custom?.span[0], win.custom?.span[1]],
  );
  if (want.length === 0) return null;
  const bucket = read.data?.lines[0]?.history.bucket ?? '';
  return (
    <Section title={sm.sitePowerTitle(siteId)} id="site-power-title">
      <p class="small">{sm.sameRange}</p>
      {read.loading && <Loading what={sm.historyLoading} />}
      <ErrorNote error={read.error} retry={read.reload} />
      {read.data && !chart && <Empty>{sm.noSamples}</Empty>}
      {chart && (
        <Chart
          title={sm.sitePowerChart(siteId, bucket)}
          unit={chart.unit}
          unit2={chart.unit2}
          x={chart.x}
          series={chart.series}
          sparse
          xRange={win.custom?.span}
          basis={read.data?.basis}
          pointSeconds={win.bucketSeconds}
          description={sm.linesDescribed(chart.series.map((x) => x.label))}
        />
      )}
      <WindowNote win={win} bucket={bucket} />
    </Section>
  );
}

function AssetHistory({ asset, live }: { asset: Asset; live: Latest | null }) {
  const win = useWindow();
  const type = historyType(asset);
  const metrics = CHART_METRICS[type];
  const key = ['history', type, asset.asset_id, win.range];
  const history = useRead(key, () =>
    readLines(
      metrics.map((metric) => ({ asset, metric })),
      win.range,
    ),
  );
  useLiveLines(key, [asset.asset_id]);
  const chart = useMemo(
    () => history.data && merge(history.data.lines, metricLabel, win.custom?.span ?? null),
    [history.data, win.custom?.span[0], win.custom?.span[1]],
  );
  const lines = history.data?.lines ?? [];
  const bucket = lines[0]?.history.bucket ?? '';
  return (
    <Section title={sm.historyTitle(asset.name)} id="history-title">
      <p class="small">
        {asset.asset_id} · {type} · {asset.connectivity} · {sm.lastReported(when(asset.last_reported_at))}
        {live && ` · ${sm.live(num(live.power_kw, 'kW'), live.soc_pct != null ? num(live.soc_pct, '%') : null, clock(live.ts))}`}
      </p>
      <RangePicker win={win} />
      {history.loading && !history.data && <Loading what={sm.historyLoading} />}
      <ErrorNote error={history.error} retry={history.reload} />
      {history.data && !chart && <Empty>{sm.noSamples}</Empty>}
      {chart && (
        <>
          <Chart
            title={sm.historyChart(
              lines.map((l) => l.history.metric),
              bucket,
            )}
            unit={chart.unit}
            unit2={chart.unit2}
            x={chart.x}
            series={chart.series}
            sparse={lines.length > 1}
            xRange={win.custom?.span}
            basis={history.data?.basis}
            pointSeconds={win.bucketSeconds}
            description={sm.historyDescribed(
              chart.x.length,
              lines.map((l) => {
                const f = figures(l, win.custom?.span ?? null);
                return sm.summary(metricLabel(l), num(f.min, l.history.unit), num(f.max, l.history.unit), num(f.latest, l.history.unit));
              }),
            )}
          />
          {/* The service's summary is of its whole window: under a custom range the chart's own span is described above. */}
          {!win.custom && (
            <ul class="small plain">
              {lines.map((l) => (
                <li key={l.history.metric}>
                  {sm.samples(
                    metricLabel(l),
                    l.history.summary.count,
                    num(l.history.summary.avg, l.history.unit),
                    num(l.history.summary.min, l.history.unit),
                    num(l.history.summary.max, l.history.unit),
                  )}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
      <WindowNote win={win} bucket={bucket} />
    </Section>
  );
}
