// The Energy screen's report of a site's day (the EMS report: every figure with its method and data
// basis) with each figure's lineage a click away (the formula, the settings used and the half hours
// it came from), and the week's location-based carbon to that day. Each appears only where the
// service declares its operation; the chosen figure is in the address (`figure=`).
import { api, data, declaredOperations, type Params, type Read } from '../api.ts';
import { addDays, clock, dayText, num, pounds } from '../format.ts';
import { msg } from '../messages.ts';
import { useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { Empty, ErrorNote, Loading, Section } from '../ui.tsx';

type Report = Read<'/api/hardware/ems/report'>;
type Figure = Report['figures'][number];
type FigureKey = Params<'/api/hardware/ems/lineage'>['query']['figure'];
const m = msg.energy;

function useOps() {
  return useRead(['operations'], declaredOperations, { staleTime: Number.POSITIVE_INFINITY });
}

/** A figure's value with its unit: ratios as per cent, money in pounds, energy and power as numbers. */
export function figureText(f: Pick<Figure, 'value' | 'unit'>): string {
  if (f.value === null) return '—';
  if (f.unit === 'ratio') return num(Number(f.value) * 100, '%', 1);
  if (f.unit === 'GBP') return pounds(f.value);
  return num(f.value, f.unit, 3);
}

export function DayReport({ site, day }: { site: string; day: string }) {
  const ops = useOps();
  const has = !!ops.data?.has('GET /api/hardware/ems/report');
  const report = useRead(['ems-report', site, day], () => data(api().GET('/api/hardware/ems/report', { params: { query: { site_id: site, date: day } } })), {
    enabled: has,
  });
  const open = useRoute().params.get('figure');
  if (!has) return null;
  const figures = report.data?.figures ?? [];
  return (
    <Section title={m.report.title(site, dayText(day))} id="report-title">
      {report.loading && <Loading what={m.report.loading} />}
      <ErrorNote error={report.error} retry={report.reload} />
      {report.data && figures.length === 0 && <Empty>{m.report.empty}</Empty>}
      {report.data && !report.data.settings_configured && <p class="small">{m.report.noSettings}</p>}
      {figures.length > 0 && (
        <table>
          <caption class="sr-only">{m.report.caption(site, dayText(day))}</caption>
          <thead>
            <tr>
              <th scope="col">{m.report.col.figure}</th>
              <th scope="col">{m.report.col.value}</th>
              <th scope="col">{m.report.col.basis}</th>
              <th scope="col">{m.report.col.lineage}</th>
            </tr>
          </thead>
          <tbody>
            {figures.map((f) => (
              <tr key={f.key}>
                <th scope="row">
                  {f.label}
                  <span class="small block">{f.method}</span>
                </th>
                <td>
                  {figureText(f)}
                  {f.unavailable_reason && <span class="small block">{f.unavailable_reason}</span>}
                </td>
                <td>
                  <span class={`badge basis-${f.basis}`}>{f.basis}</span>
                </td>
                <td>
                  <button
                    type="button"
                    aria-pressed={open === f.key}
                    // The visible words first, then which figure (an sr-only span would escape the table's scroll box).
                    aria-label={`${m.report.whereFromShort} ${f.label}`}
                    onClick={() => select({ figure: open === f.key ? null : f.key })}
                  >
                    {m.report.whereFromShort}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open && figures.some((f) => f.key === open) && <Lineage key={open} site={site} day={day} figure={open as FigureKey} />}
    </Section>
  );
}

function Lineage({ site, day, figure }: { site: string; day: string; figure: FigureKey }) {
  const lineage = useRead(['ems-lineage', site, day, figure], () =>
    data(api().GET('/api/hardware/ems/lineage', { params: { query: { site_id: site, date: day, figure } } })),
  );
  const l = lineage.data;
  const rows = (l?.half_hours ?? []).filter((h) => h.present);
  return (
    <div class="lineage" aria-live="polite">
      <h3>{m.lineage.title(l?.figure.label ?? figure)}</h3>
      {lineage.loading && <Loading what={m.lineage.loading} />}
      <ErrorNote error={lineage.error} retry={lineage.reload} />
      {l && (
        <>
          <p>
            <strong>{figureText(l.figure)}</strong> = <code>{l.formula}</code>
          </p>
          {l.settings.length > 0 ? (
            <ul class="small" aria-label={m.lineage.settings}>
              {l.settings.map((s) => (
                <li key={s.name}>{m.lineage.setting(s.name, s.value === null || s.value === undefined ? '—' : String(s.value), s.source)}</li>
              ))}
            </ul>
          ) : (
            <p class="small">{m.lineage.noSettings}</p>
          )}
          <p class="small">{m.lineage.halfHours(rows.length, l.half_hours.length, rows.filter((h) => h.gap).length)}</p>
          {rows.length === 0 ? (
            <Empty>{m.lineage.empty}</Empty>
          ) : (
            <>
              <table>
                <caption class="sr-only">{m.lineage.caption(l.figure.label)}</caption>
                <thead>
                  <tr>
                    <th scope="col">{m.lineage.col.period}</th>
                    <th scope="col">{m.lineage.col.inputs}</th>
                    <th scope="col">{m.lineage.col.basis}</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((h) => (
                    <tr key={h.period_start}>
                      <td>
                        {clock(h.period_start)}
                        <span class="small block">{m.lineage.period(h.settlement_period, h.gap)}</span>
                      </td>
                      <td class="small">
                        {Object.entries(h.inputs)
                          .map(([k, v]) => `${k.replace(/_/g, ' ')} ${v ?? '—'}`)
                          .join(' · ')}
                      </td>
                      <td class="small">
                        {h.basis
                          ? Object.entries(h.basis)
                              .map(([k, v]) => `${k} ${v}`)
                              .join(' · ')
                          : '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </>
      )}
    </div>
  );
}

/** The week to the chosen day: energy and location-based emissions a day. */
export function Carbon({ site, day }: { site: string; day: string }) {
  const ops = useOps();
  const has = !!ops.data?.has('GET /api/hardware/usage/carbon');
  const from = addDays(day, -6);
  const carbon = useRead(
    ['usage-carbon', site, day],
    () => data(api().GET('/api/hardware/usage/carbon', { params: { query: { site_id: site, period: 'day', from, to: day } } })),
    { enabled: has },
  );
  if (!has) return null;
  const buckets = carbon.data?.buckets ?? [];
  return (
    <Section title={m.carbon.title(site)} id="carbon-title">
      {carbon.loading && <Loading what={m.carbon.loading} />}
      <ErrorNote error={carbon.error} retry={carbon.reload} />
      {carbon.data && buckets.length === 0 && <Empty>{m.carbon.empty}</Empty>}
      {buckets.length > 0 && (
        <>
          <table>
            <caption class="sr-only">{m.carbon.caption(site, dayText(from), dayText(day))}</caption>
            <thead>
              <tr>
                <th scope="col">{m.carbon.col.day}</th>
                <th scope="col">{m.carbon.col.import}</th>
                <th scope="col">{m.carbon.col.consumption}</th>
                <th scope="col">{m.carbon.col.generation}</th>
                <th scope="col">{m.carbon.col.emissions}</th>
              </tr>
            </thead>
            <tbody>
              {buckets.map((b) => (
                <tr key={b.period_start}>
                  <th scope="row">
                    {b.label}
                    <span class="small block">{m.carbon.halfHours(b.half_hours_with_data)}</span>
                  </th>
                  <td>{num(b.import_kwh, 'kWh', 3)}</td>
                  <td>{num(b.consumption_kwh, 'kWh', 3)}</td>
                  <td>{num(b.generation_kwh, 'kWh', 3)}</td>
                  <td>{num(b.location_based_kg, 'kg CO2e', 3)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="small">{m.carbon.method([...new Set(buckets.flatMap((b) => b.factor_years))].join(', ') || '—')}</p>
        </>
      )}
    </Section>
  );
}
