import { useMemo, useState } from 'preact/hooks';
import { declaredOperations, get } from '../api.ts';
import { num, ukToday } from '../format.ts';
import { Chart, Empty, ErrorNote, Loading, Section, useLoad } from '../ui.tsx';

interface HalfHour {
  period_start: string;
  import_kwh: string | null;
  export_kwh: string | null;
  generation_kwh: string | null;
  consumption_kwh: string | null;
  gap: boolean;
}
interface Ledger {
  half_hours: HalfHour[];
  totals: Record<string, string>;
  timezone: string;
}

const n = (v: string | null) => (v === null ? null : Number(v));

export function Energy() {
  const sites = useLoad(() => get<{ sites: Array<{ site_id: string }> }>('/api/twin/registry/sites'), []);
  const [site, setSite] = useState('');
  const [day, setDay] = useState(ukToday());
  const chosen = site || sites.data?.sites[0]?.site_id || '';
  return (
    <>
      <Section title="Energy for a day" id="energy-title">
        <div class="toolbar">
          <label for="energy-site">Site</label>
          <select id="energy-site" value={chosen} onChange={(e) => setSite(e.currentTarget.value)}>
            {(sites.data?.sites ?? []).map((s) => (
              <option key={s.site_id} value={s.site_id}>
                {s.site_id}
              </option>
            ))}
          </select>
          <label for="energy-day">UK day</label>
          <input id="energy-day" type="date" value={day} onChange={(e) => setDay(e.currentTarget.value)} />
        </div>
        {sites.loading && <Loading what="sites" />}
        <ErrorNote error={sites.error} retry={sites.reload} />
        {sites.data && sites.data.sites.length === 0 && <Empty>No sites yet.</Empty>}
        {chosen && <SiteLedger key={`${chosen}/${day}`} site={chosen} day={day} />}
      </Section>
      <Market day={day} />
    </>
  );
}

function SiteLedger({ site, day }: { site: string; day: string }) {
  const ledger = useLoad(() => get<Ledger>(`/api/telemetry/sites/${encodeURIComponent(site)}/ledger?date=${day}`), [site, day]);
  const chart = useMemo(() => {
    const h = ledger.data?.half_hours ?? [];
    if (!h.length) return null;
    const gen = h.map((p) => n(p.generation_kwh));
    const exp = h.map((p) => n(p.export_kwh));
    return {
      x: h.map((p) => Date.parse(p.period_start) / 1000),
      series: [
        { label: 'Import (kWh)', values: h.map((p) => n(p.import_kwh)), color: '#b4441b', bars: true },
        { label: 'Export (kWh)', values: exp, color: '#1f5fa8' },
        { label: 'Generation (kWh)', values: gen, color: '#2e7d32' },
        { label: 'Self-consumption (kWh)', values: gen.map((g, i) => (g === null ? null : Math.max(0, g - (exp[i] ?? 0)))), color: '#6a1b9a' },
      ],
    };
  }, [ledger.data]);
  if (ledger.loading && !ledger.data) return <Loading what="the half-hourly ledger" />;
  if (ledger.error) return <ErrorNote error={ledger.error} retry={ledger.reload} />;
  const t = ledger.data!.totals;
  const gaps = ledger.data!.half_hours.filter((p) => p.gap).length;
  return (
    <>
      {chart && (
        <Chart
          title={`Half-hourly energy at ${site} on ${day}`}
          unit="kWh"
          x={chart.x}
          series={chart.series}
          description={`Import ${num(t.import_kwh, 'kWh')}, export ${num(t.export_kwh, 'kWh')}, generation ${num(t.generation_kwh, 'kWh')} over the day.`}
        />
      )}
      <p class="small">
        Day totals: import {num(t.import_kwh, 'kWh')} · export {num(t.export_kwh, 'kWh')} · generation {num(t.generation_kwh, 'kWh')} · consumption{' '}
        {num(t.consumption_kwh, 'kWh')} · {gaps} of {ledger.data!.half_hours.length} half hours incomplete. Self-consumption is generation less export.
      </p>
    </>
  );
}

function Market({ day }: { day: string }) {
  const data = useLoad(async () => {
    const ops = await declaredOperations();
    const to = new Date(Date.parse(`${day}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    const [prices, carbon] = await Promise.allSettled([
      ops.has('GET /api/trading/prices/provider-agile')
        ? get<{ prices: Array<{ valid_from: string; value_inc_vat: number }>; unit: string }>(
            `/api/trading/prices/provider-agile?period_from=${day}&period_to=${to}`,
          )
        : Promise.resolve(null),
      ops.has('GET /api/trading/carbon-intensity/forecast')
        ? get<{ periods: Array<{ from: string; forecast: number; actual: number | null }> }>('/api/trading/carbon-intensity/forecast?hours=24')
        : Promise.resolve(null),
    ]);
    return { prices, carbon };
  }, [day]);
  if (data.loading && !data.data) return <Loading what="prices and carbon intensity" />;
  if (!data.data) return <ErrorNote error={data.error} retry={data.reload} />;
  const { prices, carbon } = data.data;
  return (
    <Section title="Tariff prices and carbon intensity" id="market-title">
      {prices.status === 'rejected' && <ErrorNote error={prices.reason} />}
      {prices.status === 'fulfilled' && prices.value && prices.value.prices.length === 0 && <Empty>No prices published for this day yet.</Empty>}
      {prices.status === 'fulfilled' && prices.value && prices.value.prices.length > 0 && (
        <Chart
          title="Import unit rate, VAT inclusive"
          unit="p/kWh"
          x={prices.value.prices.map((p) => Date.parse(p.valid_from) / 1000)}
          series={[{ label: 'Unit rate (p/kWh)', values: prices.value.prices.map((p) => p.value_inc_vat), color: '#b4441b' }]}
          description={`${prices.value.prices.length} half-hour prices.`}
        />
      )}
      {carbon.status === 'rejected' && <ErrorNote error={carbon.reason} />}
      {carbon.status === 'fulfilled' && carbon.value && (
        <Chart
          title="GB grid carbon intensity, next 24 hours"
          unit="gCO2/kWh"
          x={carbon.value.periods.map((p) => Date.parse(p.from) / 1000)}
          series={[
            { label: 'Forecast (gCO2/kWh)', values: carbon.value.periods.map((p) => p.forecast), color: '#555' },
            { label: 'Actual (gCO2/kWh)', values: carbon.value.periods.map((p) => p.actual), color: '#2e7d32' },
          ]}
          description={`${carbon.value.periods.length} half hours.`}
        />
      )}
    </Section>
  );
}
