// Test data for EMS alerts: a hand-worked organisation (assets and telemetry through the API), a
// real SMTP server on loopback, and HTTP receivers for team chat and signed webhooks.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import { json, startTestService, type TestService, type TestServiceOptions } from '../helpers/service.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { Role } from '../../src/platform/roles.ts';

/** A Tuesday in winter: UK local time is UTC, so the peak band 16:00-19:00 is 16:00-19:00Z. */
export const NOW = '2026-11-24T12:00:00.000Z';
export const LONG = '3650d';
export const auth = (token: string) => ({ authorization: `Bearer ${token}` });
export const clockOf = (svc: TestService) => svc.clock as ManualClock;

export async function tokenFor(svc: TestService, orgId: string, roles: Role[] = ['ORG_ADMIN'], extra: { userId?: string; staff?: boolean } = {}) {
  return svc.token({ orgId, roles, expiresIn: LONG, ...extra });
}

export async function call(svc: TestService, token: string, method: string, url: string, payload?: unknown) {
  return svc.request({ method: method as 'GET', url, headers: auth(token), ...(payload !== undefined && { payload: payload as object }) });
}

export async function ok(svc: TestService, token: string, method: string, url: string, payload?: unknown, status = 200) {
  const res = await call(svc, token, method, url, payload);
  assert.equal(res.statusCode, status, `${method} ${url}: ${res.body}`);
  return res.statusCode === 204 ? null : json(res);
}

/** Instants every 15 minutes from `from` to `to`, both included (within the energy ledger's power gap limit, so it integrates them). */
function* quarters(from: string, to: string) {
  for (let t = Date.parse(from); t <= Date.parse(to); t += 900_000) yield new Date(t).toISOString();
}

/**
 * The hand-worked organisation (window: the 24 hours to NOW, default policy). Samples every 15
 * minutes: energies are the energy ledger's (power integrated, trapezoidal, decision 0320), which
 * counts samples no further apart than its gap limit (15 minutes by default).
 * - S1/inv-1 inverter, 4 kWp: -0.25 kW from 12:00 the day before to NOW = 24 h × 0.25 = 6 kWh
 *   against 4 × 2.5 = 10 kWh expected; shortfall 4 kWh × 24.50p = 98p → £0.98/day
 *   (pv_underperformance, info).
 * - S1/bat-1 battery, 10 kWh: 80 % all day, swing 0 < 10 → 10 kWh × (35.00 − 24.50)p = 105p → £1.05
 *   (battery_not_cycling, info).
 * - S1/meter-1 site meter: +2 kW from 16:00 to 19:00 (the six peak half hours 16:00-19:00 wholly
 *   at 2 kW; bat-1 at 80 % ≥ 50 %) = 6 kWh × 35.00p = 210p → £2.10 (peak_import_with_charge,
 *   info); -5 kW at 10:00 and 10:15 (the 10:00 half hour's mean) against a 3 kW limit:
 *   2 kW × 0.5 h = 1 kWh × 15.00p = 15p → £0.15 (export_over_limit, info).
 * - S2/inv-2 inverter: -1 kW from 09:00 the day before until its last record at 09:00 today, then
 *   nothing: 24 h × 1 kW = 24 kWh × 24.50p = 588p → £5.88 (asset_silence, warning).
 * Total £10.16/day.
 */
export async function seedScenario(svc: TestService, token: string) {
  const reg = async (body: object) => ok(svc, token, 'POST', '/api/twin/registry/assets', body, 201);
  await reg({ asset_id: 'meter-1', site_id: 'S1', type: 'meter', name: 'Site meter', asset_class: 'site_meter', details: { export_limit_kw: 3 } });
  await reg({
    asset_id: 'inv-1',
    site_id: 'S1',
    type: 'inverter',
    name: 'Roof PV',
    asset_class: 'inverter',
    parent_asset_id: 'meter-1',
    details: { capacity_kwp: 4 },
  });
  await reg({
    asset_id: 'bat-1',
    site_id: 'S1',
    type: 'battery',
    name: 'Battery',
    asset_class: 'battery',
    parent_asset_id: 'meter-1',
    details: { capacity_kwh: 10 },
  });
  await reg({ asset_id: 'inv-2', site_id: 'S2', type: 'inverter', name: 'Barn PV', asset_class: 'inverter', details: {} });
  const records: Record<string, unknown>[] = [];
  for (const ts of quarters('2026-11-23T12:00:00Z', NOW)) {
    const peak = ts >= '2026-11-23T16:00:00.000Z' && ts <= '2026-11-23T19:00:00.000Z';
    const over = ts === '2026-11-24T10:00:00.000Z' || ts === '2026-11-24T10:15:00.000Z';
    records.push({ asset_id: 'inv-1', ts, power_kw: -0.25 });
    records.push({ asset_id: 'bat-1', ts, power_kw: 0, soc_pct: 80 });
    records.push({ asset_id: 'meter-1', ts, power_kw: peak ? 2 : over ? -5 : 0 });
  }
  for (const ts of quarters('2026-11-23T09:00:00Z', '2026-11-24T09:00:00Z')) records.push({ asset_id: 'inv-2', ts, power_kw: -1 });
  const res = await call(svc, token, 'POST', '/api/telemetry/ingest', records);
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(json(res).stored, records.length);
}

export async function startAt(opts: TestServiceOptions = {}) {
  return startTestService({ clock: new ManualClock(NOW), ...opts });
}

export interface Mailbox {
  port: number;
  messages: { mail: ParsedMail; to: string[]; from: string }[];
  close(): Promise<void>;
}

/** A real SMTP server (the smtp-server package) on loopback that keeps what arrives. */
export async function startSmtp(): Promise<Mailbox> {
  const messages: Mailbox['messages'] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, cb) {
      simpleParser(stream)
        .then((mail) => {
          messages.push({ mail, to: session.envelope.rcptTo.map((r) => r.address), from: (session.envelope.mailFrom || { address: '' }).address });
          cb();
        })
        .catch(cb);
    },
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.server.address() as AddressInfo).port;
  return { port, messages, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export const smtpEnv = (m: Mailbox) => ({ SMTP_HOST: '127.0.0.1', SMTP_PORT: String(m.port), SMTP_FROM: 'alerts@platform.test', SMTP_REQUIRE_TLS: 'false' });

export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** An inverter at `site` that reported -1 kW every 15 minutes for the 24 hours to 10:00 and then went silent: £5.88/day at NOW. */
export async function silentInverter(svc: TestService, token: string, assetId: string, site = 'S9') {
  await ok(
    svc,
    token,
    'POST',
    '/api/twin/registry/assets',
    { asset_id: assetId, site_id: site, type: 'inverter', name: assetId, asset_class: 'inverter', details: {} },
    201,
  );
  const records = [];
  for (let t = Date.parse('2026-11-23T10:00:00Z'); t <= Date.parse('2026-11-24T10:00:00Z'); t += 900_000) {
    records.push({ asset_id: assetId, ts: new Date(t).toISOString(), power_kw: -1 });
  }
  await ok(svc, token, 'POST', '/api/telemetry/ingest', records);
}
