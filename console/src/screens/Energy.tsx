import { useMemo } from 'preact/hooks';
import { ApiError, api, type Basis, data, dataWithBasis, declaredOperations, type Read } from '../api.ts';
import { dayText, num, ukToday, when } from '../format.ts';
import { Chart, DayField, Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { queryClient, useMutation, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { Carbon, DayReport } from './EnergyReport.tsx';
import { msg } from '../messages.ts';

const mk = msg.energy.market;
const me = msg.energy.day;

const n = (v: string | null) => (v === null ? null : Number(v));
type Ledger = Read<'/api/telemetry/sites/{site_id}/ledger'>;
/** While a rebuild of the site is queued or running, the ledger (which shows its progress) is read this often. */
const REBUILD_EVERY_MS = 1_000;
const rebuilding = (l: Ledger | undefined) => !!l?.rebuild && (l.rebuild.status === 'queued' || l.rebuild.status === 'running');

export function Energy() {
  // The sites with energy (assets feeding a grid, PV, battery or load role), from the energy
  // module: a site of the registry without them answers the ledger "Site not found".
  const sites = useRead(['energy-sites'], () => data(api().GET('/api/telemetry/sites')));
  const { params } = useRoute();
  const site = params.get('site') ?? '';
  const asked = params.get('day');
  const day = asked && /^\d{4}-\d{2}-\d{2}$/.test(asked) ? asked : ukToday();
  const withEnergy = (sites.data?.sites ?? []).filter((s) => s.assets > 0);
  // The address's site if it has energy; else one with measured half hours in the last 30 days,
  // else the first with energy assets.
  const chosen = withEnergy.some((s) => s.site_id === site) ? site : ((withEnergy.find((s) => s.half_hours_with_data > 0) ?? withEnergy[0])?.site_id ?? '');
  return (
    <>
      <Section title={me.title} id="energy-title">
        <div class="toolbar">
          <label for="energy-site">{me.site}</label>
          <select id="energy-site" value={chosen} onChange={(e) => select({ site: e.currentTarget.value })}>
            {withEnergy.map((s) => (
              <option key={s.site_id} value={s.site_id}>
                {s.site_id}
              </option>
            ))}
          </select>
          <label for="energy-day">{me.day}</label>
          <DayField id="energy-day" value={day} onChange={(d) => select({ day: d })} />
        </div>
        {sites.loading && <Loading what={me.sitesLoading} />}
        <ErrorNote error={sites.error} retry={sites.reload} />
        {sites.data && withEnergy.length === 0 && <Empty>{me.noSites}</Empty>}
        {chosen && <SiteLedger key={`${chosen}/${day}`} site={chosen} day={day} />}
      </Section>
      {chosen && <DayReport key={`report-${chosen}/${day}`} site={chosen} day={day} />}
      {chosen && <Carbon key={`carbon-${chosen}/${day}`} site={chosen} day={day} />}
      <Market day={day} />
    </>
  );
}

function SiteLedger({ site, day }: { site: string; day: string }) {
  const ledger = useRead(
    ['ledger', site, day],
    () => data(api().GET('/api/telemetry/sites/{site_id}/ledger', { params: { path: { site_id: site }, query: { date: day } } })),
    { refetchInterval: rebuilding(queryClient.getQueryData<Ledger>(['ledger', site, day])) ? REBUILD_EVERY_MS : false },
  );
  const rebuild = useMutation({
    mutationFn: () => data(api().POST('/api/telemetry/sites/{site_id}/ledger/rebuild', { params: { path: { site_id: site } }, body: {} })),
    onSuccess: () => ledger.reload(),
  });
  const chart = useMemo(() => {
    const h = ledger.data?.half_hours ?? [];
    if (!h.length) return null;
    const gen = h.map((p) => n(p.generation_kwh));
    const exp = h.map((p) => n(p.export_kwh));
    return {
      x: h.map((p) => Date.parse(p.period_start) / 1000),
      series: [
        { label: me.series.import, values: h.map((p) => n(p.import_kwh)), color: '#b4441b', bars: true },
        { label: me.series.export, values: exp, color: '#1f5fa8' },
        { label: me.series.generation, values: gen, color: '#2e7d32' },
        { label: me.series.selfConsumption, values: gen.map((g, i) => (g === null ? null : Math.max(0, g - (exp[i] ?? 0)))), color: '#6a1b9a' },
      ],
    };
  }, [ledger.data]);
  if (ledger.loading && !ledger.data) return <Loading what={me.ledgerLoading} />;
  if (ledger.error) return <ErrorNote error={ledger.error} retry={ledger.reload} />;
  const t = ledger.data!.totals;
  const gaps = ledger.data!.half_hours.filter((p) => p.gap).length;
  // The bases of the day's flows (measured, calculated; simulated for a demo organisation), as the half hours carry them.
  const bases = [...new Set(ledger.data!.half_hours.flatMap((p) => Object.values(p.basis ?? {}).filter((b): b is string => typeof b === 'string')))].filter(
    (b) => b === 'measured' || b === 'calculated' || b === 'simulated',
  );
  return (
    <>
      {chart && (
        <Chart
          title={me.chart(site, dayText(day))}
          unit="kWh"
          x={chart.x}
          series={chart.series}
          description={me.described(num(t.import_kwh, 'kWh'), num(t.export_kwh, 'kWh'), num(t.generation_kwh, 'kWh'))}
        />
      )}
      {bases.length > 0 && (
        <p class="small basis">
          {me.basisLabel}{' '}
          {bases.map((b) => (
            <span key={b} class={`badge basis-${b}`}>
              {b}
            </span>
          ))}
        </p>
      )}
      <p class="small">
        {me.totals(
          num(t.import_kwh, 'kWh'),
          num(t.export_kwh, 'kWh'),
          num(t.generation_kwh, 'kWh'),
          num(t.consumption_kwh, 'kWh'),
          gaps,
          ledger.data!.half_hours.length,
        )}
      </p>
      <RebuildBar ledger={ledger.data!} start={() => rebuild.mutate(undefined)} busy={rebuild.isPending} error={rebuild.error} />
    </>
  );
}

/** The ledger's rebuild from the stored telemetry: a button, and the last rebuild's progress by day. */
function RebuildBar({ ledger, start, busy, error }: { ledger: Ledger; start: () => void; busy: boolean; error: unknown }) {
  const r = ledger.rebuild;
  const running = rebuilding(ledger);
  return (
    <div class="toolbar">
      <button type="button" onClick={start} disabled={busy || running}>
        {me.rebuild}
      </button>
      {r && (
        <label class="progress">
          <span>{me.rebuildLine(r.status, r.days_done, r.days_total, when(r.requested_at), r.finished_at ? when(r.finished_at) : null)}</span>
          <progress max={r.days_total || 1} value={r.days_done} />
        </label>
      )}
      {r?.error && <p class="bad">{me.rebuildFailed(r.error)}</p>}
      <ErrorNote error={error} />
    </div>
  );
}

/**
 * An answer with its request id, to quote when the service says the figures are stale: the console
 * names the request itself (the service logs it under that id) unless the answer names another.
 */
async function withRequestId<T>(
  call: (headers: Record<string, string>) => Promise<{ data?: T; response: Response }>,
): Promise<T & { requestId: string; basis: Basis | null }> {
  const sent = `console-${crypto.randomUUID()}`;
  const r = call({ 'x-request-id': sent });
  const { data: answer, basis } = await dataWithBasis(r);
  return { ...answer, requestId: (await r).response.headers.get('x-request-id') ?? sent, basis };
}

/**
 * A market panel's provider trouble in words: a 502 is the service saying the provider could not
 * be reached and nothing usable is cached (its detail and the request id follow); `stale: true` is
 * the service serving cached figures because the provider could not be reached.
 */
function ProviderNote({ provider, error }: { provider: 'tariff' | 'carbon'; error: unknown }) {
  if (error instanceof ApiError && error.status === 502) return <ErrorNote error={error} headline={mk.unreachable[provider]} />;
  return <ErrorNote error={error} />;
}
function StaleNote({ provider, cachedAt, requestId }: { provider: 'tariff' | 'carbon'; cachedAt: string; requestId: string }) {
  return (
    <div class="note" role="status">
      <p>
        <strong>{mk.stale[provider](when(cachedAt))}</strong>
      </p>
      <p class="small">
        {mk.requestId} <code>{requestId}</code>
      </p>
    </div>
  );
}

function Market({ day }: { day: string }) {
  const ops = useRead(['operations'], declaredOperations, { staleTime: Infinity });
  const to = new Date(Date.parse(`${day}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  const hasPrices = !!ops.data?.has('GET /api/trading/prices/provider-agile');
  const hasCarbon = !!ops.data?.has('GET /api/trading/carbon-intensity/forecast');
  const prices = useRead(
    ['prices', day],
    () => withRequestId((headers) => api().GET('/api/trading/prices/provider-agile', { params: { query: { period_from: day, period_to: to } }, headers })),
    { enabled: hasPrices },
  );
  const carbon = useRead(
    ['carbon-forecast'],
    () => withRequestId((headers) => api().GET('/api/trading/carbon-intensity/forecast', { params: { query: { hours: 24 } }, headers })),
    {
      enabled: hasCarbon,
    },
  );
  if (!hasPrices && !hasCarbon) return null;
  return (
    <Section title={mk.title} id="market-title">
      {prices.loading && <Loading what={mk.pricesLoading} />}
      {prices.error !== null && <ProviderNote provider="tariff" error={prices.error} />}
      {prices.data?.stale && <StaleNote provider="tariff" cachedAt={prices.data.cached_at} requestId={prices.data.requestId} />}
      {prices.data && prices.data.prices.length === 0 && <Empty>{mk.noPrices}</Empty>}
      {prices.data && prices.data.prices.length > 0 && (
        <Chart
          title={mk.pricesChart}
          unit="p/kWh"
          x={prices.data.prices.map((p) => Date.parse(p.valid_from) / 1000)}
          series={[{ label: mk.unitRate, values: prices.data.prices.map((p) => p.value_inc_vat), color: '#b4441b' }]}
          basis={prices.data.basis}
          description={mk.halfHourPrices(prices.data.prices.length)}
        />
      )}
      {carbon.loading && <Loading what={mk.carbonLoading} />}
      {carbon.error !== null && <ProviderNote provider="carbon" error={carbon.error} />}
      {carbon.data?.stale && <StaleNote provider="carbon" cachedAt={carbon.data.cached_at} requestId={carbon.data.requestId} />}
      {carbon.data && (
        <Chart
          title={mk.carbonChart}
          unit="gCO2/kWh"
          x={carbon.data.periods.map((p) => Date.parse(p.from) / 1000)}
          series={[
            { label: mk.forecast, values: carbon.data.periods.map((p) => p.forecast), color: '#555' },
            { label: mk.actual, values: carbon.data.periods.map((p) => p.actual), color: '#2e7d32' },
          ]}
          description={mk.halfHours(carbon.data.periods.length)}
          basis={carbon.data.basis}
        />
      )}
    </Section>
  );
}
