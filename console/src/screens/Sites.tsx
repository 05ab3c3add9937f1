import { useEffect, useMemo, useState } from 'preact/hooks';
import { get } from '../api.ts';
import { latestByAsset, subscribe, type LiveTelemetry } from '../live.ts';
import { clock, num, when } from '../format.ts';
import { Chart, Empty, ErrorNote, Loading, Section, useLoad } from '../ui.tsx';

interface Site {
  site_id: string;
  asset_count: number;
  last_reported_at: string | null;
  freshness: Record<string, number>;
  topology_errors: number;
}
interface Asset {
  asset_id: string;
  site_id: string;
  type: string;
  name: string;
  asset_class: string | null;
  parent_asset_id: string | null;
  freshness: string;
  connectivity: string;
  last_reported_at: string | null;
}
interface Latest {
  ts: string;
  power_kw: number | null;
  soc_pct: number | null;
}

const RANGES = [
  { range: 'live', label: 'Last hour' },
  { range: 'hourly', label: '24 hours' },
  { range: 'daily', label: '30 days' },
  { range: 'weekly', label: '12 weeks' },
  { range: 'historical', label: '12 months' },
] as const;

const HISTORY_TYPES = ['solar', 'battery', 'ev', 'heat-pump', 'smart-meter'];
/** The telemetry history's asset type for a registry asset (its free-form type, else its class). */
export function historyType(a: Pick<Asset, 'type' | 'asset_class'>): string {
  const t = a.type.toLowerCase();
  if (HISTORY_TYPES.includes(t)) return t;
  const s = `${t} ${a.asset_class ?? ''}`;
  if (/batter|storage/.test(s)) return 'battery';
  if (/pv|solar|inverter/.test(s)) return 'solar';
  if (/ev|charger|vehicle/.test(s)) return 'ev';
  if (/heat/.test(s)) return 'heat-pump';
  return 'smart-meter';
}

export function Sites() {
  const sites = useLoad(() => get<{ sites: Site[] }>('/api/twin/registry/sites'), []);
  const [site, setSite] = useState<string | null>(null);
  const chosen = site ?? sites.data?.sites[0]?.site_id ?? null;
  return (
    <div class="grid">
      <Section title="Sites" id="sites-title">
        {sites.loading && <Loading what="sites" />}
        <ErrorNote error={sites.error} retry={sites.reload} />
        {sites.data && sites.data.sites.length === 0 && <Empty>No sites yet. Register an asset with a site to see it here.</Empty>}
        {sites.data && sites.data.sites.length > 0 && (
          <ul class="list" aria-label="Sites">
            {sites.data.sites.map((s) => (
              <li key={s.site_id}>
                <button type="button" class="row" aria-pressed={chosen === s.site_id} onClick={() => setSite(s.site_id)}>
                  <strong>{s.site_id}</strong>
                  <span class="small">
                    {s.asset_count} {s.asset_count === 1 ? 'asset' : 'assets'} · last reported {when(s.last_reported_at)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>
      {chosen && <SiteAssets key={chosen} siteId={chosen} />}
    </div>
  );
}

function SiteAssets({ siteId }: { siteId: string }) {
  const assets = useLoad(() => get<{ assets: Asset[] }>(`/api/twin/registry/assets?site_id=${encodeURIComponent(siteId)}`), [siteId]);
  const [latest, setLatest] = useState<Record<string, Latest>>(() => Object.fromEntries(latestByAsset));
  const [selected, setSelected] = useState<string | null>(null);
  useEffect(
    () =>
      subscribe((event, data) => {
        if (event !== 'telemetry') return;
        const t = data as LiveTelemetry;
        setLatest((prev) => {
          const next = { ...prev };
          for (const r of t.records) if (!next[r.asset_id] || next[r.asset_id].ts <= r.ts) next[r.asset_id] = r;
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
      <ul class="tree" aria-label={depth === 0 ? `Assets of ${siteId}` : undefined}>
        {kids.map((a) => {
          const l = latest[a.asset_id];
          return (
            <li key={a.asset_id}>
              <button type="button" class="row" onClick={() => setSelected(a.asset_id)} aria-pressed={asset?.asset_id === a.asset_id}>
                <span>
                  <strong>{a.name}</strong> <span class="small">{a.asset_class ?? a.type}</span>
                </span>
                <span class={`badge fresh-${a.freshness}`}>{a.freshness}</span>
                <span class="small">{l ? `${num(l.power_kw, 'kW')} at ${clock(l.ts)} (live)` : `last reported ${when(a.last_reported_at)}`}</span>
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
      <Section title={`Assets at ${siteId}`} id="assets-title">
        {assets.loading && <Loading what="assets" />}
        <ErrorNote error={assets.error} retry={assets.reload} />
        {assets.data && assets.data.assets.length === 0 && <Empty>This site has no registered assets.</Empty>}
        {renderLevel(null, 0)}
      </Section>
      {asset && <AssetHistory key={asset.asset_id} asset={asset} live={latest[asset.asset_id] ?? null} />}
    </>
  );
}

interface History {
  unit: string;
  metric: string;
  bucket: string;
  series: Array<{ t: string; v: number }>;
  summary: { count: number; min: number | null; max: number | null; avg: number | null; latest: number | null };
}

function AssetHistory({ asset, live }: { asset: Asset; live: Latest | null }) {
  const [range, setRange] = useState<string>('hourly');
  const type = historyType(asset);
  const history = useLoad(
    () => get<History>(`/api/telemetry/assets/${type}/${encodeURIComponent(asset.asset_id)}/history?range=${range}`),
    [asset.asset_id, range, type],
  );
  // New samples on the stream refresh the chart (at most once per arriving batch for this asset).
  useEffect(() => {
    if (live) history.reload();
  }, [live?.ts]);
  const chart = useMemo(() => {
    const h = history.data;
    if (!h || h.series.length === 0) return null;
    return {
      x: h.series.map((p) => Date.parse(p.t) / 1000),
      series: [{ label: `${h.metric} (${h.unit})`, values: h.series.map((p) => p.v), color: '#1f5fa8' }],
    };
  }, [history.data]);
  return (
    <Section title={`${asset.name}: history`} id="history-title">
      <p class="small">
        {asset.asset_id} · {type} · {asset.connectivity} · last reported {when(asset.last_reported_at)}
        {live && ` · live ${num(live.power_kw, 'kW')}${live.soc_pct !== null ? `, ${num(live.soc_pct, '%')}` : ''} at ${clock(live.ts)}`}
      </p>
      <div class="tabs" role="group" aria-label="History range">
        {RANGES.map((r) => (
          <button key={r.range} type="button" aria-pressed={range === r.range} onClick={() => setRange(r.range)}>
            {r.label}
          </button>
        ))}
      </div>
      {history.loading && !history.data && <Loading what="history" />}
      <ErrorNote error={history.error} retry={history.reload} />
      {history.data && !chart && <Empty>No samples in this range.</Empty>}
      {history.data && chart && (
        <>
          <Chart
            title={`${history.data.metric} per ${history.data.bucket}`}
            unit={history.data.unit}
            x={chart.x}
            series={chart.series}
            description={`${history.data.series.length} points; min ${num(history.data.summary.min, history.data.unit)}, max ${num(history.data.summary.max, history.data.unit)}, latest ${num(history.data.summary.latest, history.data.unit)}.`}
          />
          <p class="small">
            {history.data.summary.count} samples · mean {num(history.data.summary.avg, history.data.unit)} · min{' '}
            {num(history.data.summary.min, history.data.unit)} · max {num(history.data.summary.max, history.data.unit)}
          </p>
        </>
      )}
    </Section>
  );
}
