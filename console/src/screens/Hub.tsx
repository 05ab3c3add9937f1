// The charging hub: a site's chargers live (connection, each connector's status, the session on it
// and its power) and its sessions with their costs. Connector status is not on the live stream, so
// the site is read again every 15 s; a charger's meter values are (its asset's telemetry), so its
// power shows from the event and the site and sessions are read again at most every 5 s.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, data, type Read, type Schemas } from '../api.ts';
import { latestByAsset, subscribe, type LiveTelemetryRecord } from '../live.ts';
import { clock, num, pounds, when } from '../format.ts';
import { describe, Empty, ErrorNote, Loading, Section } from '../ui.tsx';
import { refetchSoon, useRead } from '../query.ts';
import { select, useRoute } from '../route.ts';
import { Commands, IdTokens } from './HubControl.tsx';
import { msg } from '../messages.ts';

const h = msg.hub.live;

type ChargePoint = Schemas['HubChargePoint'];
type Transaction = Schemas['HubTransaction'];
type Cost = Read<'/api/csms/api/hub/transactions/{transaction_id}/cost'>;

/** How often a site's chargers are read again (their connector status is not on the live stream). */
const SITE_EVERY_MS = 15_000;

export function Hub() {
  const sites = useRead(['hub-sites'], () => data(api().GET('/api/csms/api/hub/sites', { params: { query: { limit: 100 } } })));
  const wanted = useRoute().params.get('site');
  const list = sites.data?.sites ?? [];
  const chosen = list.find((s) => s.site_id === wanted)?.site_id ?? list[0]?.site_id ?? null;
  return (
    <div class="grid">
      <Section title={h.sitesTitle} id="hub-sites-title">
        {sites.loading && <Loading what={h.sitesLoading} />}
        <ErrorNote error={sites.error} retry={sites.reload} />
        {sites.data && list.length === 0 && <Empty>{h.noSites}</Empty>}
        {list.length > 0 && (
          <ul class="list" aria-label={h.sitesTitle}>
            {list.map((s) => (
              <li key={s.site_id}>
                <button type="button" class="row" aria-pressed={chosen === s.site_id} onClick={() => select({ site: s.site_id })}>
                  <strong>{s.name}</strong>
                  <span class="small">
                    {s.site_id}
                    {s.postcode ? ` · ${s.postcode}` : ''}
                    {s.capacity_kw !== null ? h.shared(num(s.capacity_kw, 'kW')) : ''}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Section>
      {chosen && <HubSite key={chosen} siteId={chosen} />}
      <IdTokens />
    </div>
  );
}

function HubSite({ siteId }: { siteId: string }) {
  const site = useRead(['hub-site', siteId], () => data(api().GET('/api/csms/api/hub/sites/{site_id}', { params: { path: { site_id: siteId } } })), {
    refetchInterval: SITE_EVERY_MS,
  });
  const txs = useRead(['hub-transactions', siteId], () =>
    data(api().GET('/api/csms/api/hub/sites/{site_id}/transactions', { params: { path: { site_id: siteId }, query: { limit: 20 } } })),
  );
  const [latest, setLatest] = useState<Record<string, LiveTelemetryRecord>>(() => Object.fromEntries(latestByAsset));
  const assets = new Set((site.data?.charge_points ?? []).map((c) => c.asset_id));
  useEffect(
    () =>
      subscribe((e) => {
        if (e.event !== 'telemetry') return;
        const mine = e.data.records.filter((r) => assets.has(r.asset_id));
        if (!mine.length) return;
        setLatest((prev) => {
          const next = { ...prev };
          for (const r of mine) if (!next[r.asset_id] || next[r.asset_id].ts <= r.ts) next[r.asset_id] = r;
          return next;
        });
        refetchSoon(['hub-site', siteId]);
        refetchSoon(['hub-transactions', siteId]);
      }),
    [siteId, [...assets].join()],
  );
  const open = (txs.data?.transactions ?? []).filter((t) => !t.stopped_at);
  const points = site.data?.charge_points ?? [];
  return (
    <>
      <Section title={h.chargersTitle(site.data?.name ?? siteId)} id="hub-chargers-title">
        {site.loading && <Loading what={h.chargersLoading} />}
        <ErrorNote error={site.error} retry={site.reload} />
        {site.data && points.length === 0 && <Empty>{h.noChargers}</Empty>}
        {points.length > 0 && (
          <table>
            <caption class="sr-only">{h.chargersCaption(siteId)}</caption>
            <thead>
              <tr>
                <th scope="col">{h.col.charger}</th>
                <th scope="col">{h.col.connection}</th>
                <th scope="col">{h.col.connector}</th>
                <th scope="col">{h.col.session}</th>
                <th scope="col">{h.col.power}</th>
              </tr>
            </thead>
            <tbody>
              {points.map((c) => (
                <ChargerRows key={c.charge_point_id} c={c} open={open} live={latest[c.asset_id] ?? null} />
              ))}
            </tbody>
          </table>
        )}
      </Section>
      {points.length > 0 && <Commands points={points} />}
      <Section title={h.sessionsTitle} id="hub-sessions-title">
        {txs.loading && <Loading what={h.sessionsLoading} />}
        <ErrorNote error={txs.error} retry={txs.reload} />
        {txs.data && txs.data.transactions.length === 0 && <Empty>{h.noSessions}</Empty>}
        {txs.data && txs.data.transactions.length > 0 && (
          <table>
            <caption class="sr-only">{h.sessionsCaption(siteId)}</caption>
            <thead>
              <tr>
                <th scope="col">{h.col.started}</th>
                <th scope="col">{h.col.charger}</th>
                <th scope="col">{h.col.idTag}</th>
                <th scope="col">{h.col.energy}</th>
                <th scope="col">{h.col.status}</th>
                <th scope="col">{h.col.cost}</th>
              </tr>
            </thead>
            <tbody>
              {txs.data.transactions.map((t) => (
                <SessionRow key={t.transaction_id} t={t} />
              ))}
            </tbody>
          </table>
        )}
      </Section>
    </>
  );
}

function ChargerRows({ c, open, live }: { c: ChargePoint; open: Transaction[]; live: LiveTelemetryRecord | null }) {
  const connectors = c.connector_status.length ? c.connector_status : [null];
  return (
    <>
      {connectors.map((k, i) => {
        const session = k ? open.find((t) => t.charge_point_id === c.charge_point_id && t.connector_id === k.connector_id) : undefined;
        return (
          <tr key={k?.connector_id ?? 0}>
            {i === 0 && (
              <th scope="row" rowSpan={connectors.length}>
                {c.charge_point_id}
                <span class="small block">
                  {[c.vendor, c.model].filter(Boolean).join(' ') || h.noModel} · {num(c.max_power_kw, 'kW')}
                  {c.rapid ? h.rapid : ''}
                </span>
              </th>
            )}
            {i === 0 && (
              <td rowSpan={connectors.length}>
                <span class={`badge ${c.connected ? 'fresh-live' : 'fresh-silent'}`}>{c.connected ? h.online : h.offline}</span>
                <span class="small block">{h.heartbeat(when(c.last_heartbeat_at))}</span>
              </td>
            )}
            <td>
              {k ? (
                <>
                  {k.connector_id}: <strong>{k.status}</strong> <span class="small">({k.ocpi_status})</span>
                  <span class="small block">{h.since(when(k.since))}</span>
                </>
              ) : (
                <span class="small">{h.noStatus}</span>
              )}
            </td>
            <td>
              {session ? (
                <>
                  {session.id_tag ?? h.noIdTag} · {num(session.energy_kwh, 'kWh', 3)}
                  <span class="small block">{h.since(when(session.started_at))}</span>
                </>
              ) : (
                <span class="small">{h.none}</span>
              )}
            </td>
            {i === 0 && (
              <td rowSpan={connectors.length}>
                {live && live.power_kw != null ? (
                  <>
                    {num(live.power_kw, 'kW')} <span class="small">{h.liveAt(clock(live.ts))}</span>
                  </>
                ) : (
                  <span class="small">{h.noReading}</span>
                )}
              </td>
            )}
          </tr>
        );
      })}
    </>
  );
}

function SessionRow({ t }: { t: Transaction }) {
  // A stopped session's cost is final; an open one's is the cost so far, read again with the session.
  const cost = useRead<Cost>(
    ['hub-cost', t.transaction_id, t.stopped_at ?? t.energy_kwh],
    () => data(api().GET('/api/csms/api/hub/transactions/{transaction_id}/cost', { params: { path: { transaction_id: t.transaction_id } } })),
    { staleTime: t.stopped_at ? Number.POSITIVE_INFINITY : 10_000 },
  );
  return (
    <tr>
      <td>{when(t.started_at)}</td>
      <td>
        {t.charge_point_id} / {t.connector_id}
      </td>
      <td>{t.id_tag ?? '—'}</td>
      <td>{num(t.energy_kwh, 'kWh', 3)}</td>
      <td>{t.stopped_at ? h.stopped(when(t.stopped_at), t.stop_reason ?? null) : h.charging}</td>
      <td>
        {cost.loading && <span class="small">{h.workingOut}</span>}
        {cost.error ? <span class="small">{h.noCost(cost.error instanceof ApiError ? describe(cost.error) : null)}</span> : null}
        {cost.data && (
          <>
            <strong>{pounds(cost.data.total_gbp)}</strong>
            <span class="small block">
              {h.netVat(pounds(cost.data.net_gbp), pounds(cost.data.vat_gbp))}
              {cost.data.status === 'open' ? h.soFar : ''}
            </span>
          </>
        )}
      </td>
    </tr>
  );
}
