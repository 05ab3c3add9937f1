// Loopback fakes of the tariff provider and the carbon intensity API, answering with the real
// shapes (upstreams.md sections 1 and 3): newest-first pages with an absolute `next`, seconds in
// the tariff times and none in the carbon times, `actual: null` for future half hours.
import type http from 'node:http';
import { startFakeServer, sendJson, type FakeHandler, type FakeServer, type RecordedRequest } from './fake-server.ts';

export type FakeMode = 'ok' | 'down' | 'slow' | 'garbage' | 'html' | 'flaky';

const SLOT = 30 * 60_000;
const isoSec = (t: number) => new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
const isoMin = (t: number) => new Date(t).toISOString().slice(0, 16) + 'Z';

/** Shared failure behaviours. Returns true when the request was answered. */
async function misbehave(mode: FakeMode, res: http.ServerResponse, state: { flakyLeft: number }): Promise<boolean> {
  switch (mode) {
    case 'down':
      sendJson(res, 503, { detail: 'upstream secret: db at 10.1.2.3 failed', error: { code: '503', message: 'internal' } });
      return true;
    case 'slow':
      // Never answers: past any deadline the tests configure, however busy the box (the socket
      // goes when the fake closes).
      return new Promise<never>(() => {});
    case 'garbage':
      sendJson(res, 200, { results: 'not a list', data: { nope: true } });
      return true;
    case 'html':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Maintenance at internal-host 10.9.9.9</body></html>');
      return true;
    case 'flaky':
      if (state.flakyLeft > 0) {
        state.flakyLeft--;
        sendJson(res, 503, { detail: 'try again' });
        return true;
      }
      return false;
    default:
      return false;
  }
}

export interface FakeTariff {
  server: FakeServer;
  url: string;
  mode: FakeMode;
  /** Half hours starting at or after this instant are not published (null: all published). */
  publishedUntil: number | null;
  /** Rows per page regardless of page_size (the real provider allows up to 1500). */
  pageSize: number;
  /** Leave value_inc_vat out of the rows. */
  omitIncVat: boolean;
  /** Failures left in 'flaky' mode. */
  flakyLeft: number;
  price: (t: number, region: string) => number;
  /** Answers every request instead of the fake's own logic while set. */
  override: FakeHandler | null;
  /** Requests for unit rates (page fetches). */
  rateRequests(): RecordedRequest[];
  close(): Promise<void>;
}

/** A deterministic price in p/kWh excluding VAT, 2 decimals, with a 16:00-19:00 UK peak. */
export function defaultPrice(t: number): number {
  const hourUk = Number(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/London', hour: '2-digit', hourCycle: 'h23' }).format(new Date(t)));
  const base = hourUk >= 16 && hourUk < 19 ? 30 : hourUk >= 1 && hourUk < 5 ? 9 : 18;
  const wiggle = ((t / SLOT) % 7) * 0.37;
  return Math.round((base + wiggle) * 100) / 100;
}

export async function startFakeTariff(): Promise<FakeTariff> {
  const state = { flakyLeft: 0 };
  const fake: FakeTariff = {
    server: undefined as unknown as FakeServer,
    url: '',
    mode: 'ok',
    publishedUntil: null,
    pageSize: 1500,
    omitIncVat: false,
    get flakyLeft() {
      return state.flakyLeft;
    },
    set flakyLeft(n: number) {
      state.flakyLeft = n;
    },
    price: defaultPrice,
    override: null,
    rateRequests: () => fake.server.requests.filter((r) => r.url.includes('/standard-unit-rates/')),
    close: () => fake.server.close(),
  };
  fake.server = await startFakeServer(async (req, res) => {
    if (fake.override) return fake.override(req, res);
    if (await misbehave(fake.mode, res, state)) return;
    const u = new URL(req.url, fake.url);
    const m = /^\/v1\/products\/([A-Z0-9-]+)\/electricity-tariffs\/E-1R-\1-([A-Z])\/standard-unit-rates\/$/.exec(u.pathname);
    if (!m) return sendJson(res, 404, { detail: 'Not found.' });
    const region = m[2];
    const from = Date.parse(u.searchParams.get('period_from') ?? '');
    const to = Date.parse(u.searchParams.get('period_to') ?? '');
    if (!Number.isFinite(from) || !Number.isFinite(to)) return sendJson(res, 400, { period_from: ['bad'] });
    const size = Math.min(Number(u.searchParams.get('page_size') ?? 100), 1500, fake.pageSize);
    const page = Number(u.searchParams.get('page') ?? 1);
    const rows = [];
    for (let t = Math.floor(from / SLOT) * SLOT; t < to; t += SLOT) {
      if (fake.publishedUntil !== null && t >= fake.publishedUntil) continue;
      const exc = fake.price(t, region);
      const row: Record<string, unknown> = { value_exc_vat: exc, valid_from: isoSec(t), valid_to: isoSec(t + SLOT), payment_method: null };
      // The provider's own figure: exclusive × 1.05, not rounded.
      if (!fake.omitIncVat) row.value_inc_vat = Number(((Math.round(exc * 100) * 105) / 10000).toFixed(4));
      rows.push(row);
    }
    rows.reverse(); // newest first
    const slice = rows.slice((page - 1) * size, page * size);
    let next: string | null = null;
    if (page * size < rows.length) {
      const n = new URL(u.pathname, fake.url);
      u.searchParams.forEach((v, k) => n.searchParams.set(k, v));
      n.searchParams.set('page', String(page + 1));
      next = n.toString();
    }
    sendJson(res, 200, { count: rows.length, next, previous: page > 1 ? 'prev' : null, results: slice });
  });
  fake.url = fake.server.url;
  return fake;
}

export interface FakeCarbon {
  server: FakeServer;
  url: string;
  mode: FakeMode;
  flakyLeft: number;
  /** The provider's idea of now (the test's clock). */
  now: () => number;
  /** fw48h starts with the half hour before `from` (the unconfirmed variant). */
  startOneEarly: boolean;
  forecast: (t: number) => number;
  /** Answers every request instead of the fake's own logic while set. */
  override: FakeHandler | null;
  requests(path: RegExp): RecordedRequest[];
  close(): Promise<void>;
}

function band(v: number): string {
  // 2026 bands.
  return v >= 230 ? 'very high' : v >= 170 ? 'high' : v >= 90 ? 'moderate' : v >= 25 ? 'low' : 'very low';
}

export async function startFakeCarbon(now: () => number): Promise<FakeCarbon> {
  const state = { flakyLeft: 0 };
  const fake: FakeCarbon = {
    server: undefined as unknown as FakeServer,
    url: '',
    mode: 'ok',
    get flakyLeft() {
      return state.flakyLeft;
    },
    set flakyLeft(n: number) {
      state.flakyLeft = n;
    },
    now,
    startOneEarly: false,
    forecast: (t) => 60 + (Math.floor(t / SLOT) % 48) * 4,
    override: null,
    requests: (path) => fake.server.requests.filter((r) => path.test(r.url)),
    close: () => fake.server.close(),
  };
  const row = (t: number) => {
    const f = fake.forecast(t);
    const past = t + SLOT <= fake.now();
    return { from: isoMin(t), to: isoMin(t + SLOT), intensity: { forecast: f, actual: past ? f - 3 : null, index: band(f) } };
  };
  fake.server = await startFakeServer(async (req, res) => {
    if (fake.override) return fake.override(req, res);
    if (await misbehave(fake.mode, res, state)) return;
    const path = new URL(req.url, fake.url).pathname;
    if (path === '/intensity') return sendJson(res, 200, { data: [row(Math.floor(fake.now() / SLOT) * SLOT)] });
    const m = /^\/intensity\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z)\/fw48h$/.exec(path);
    if (m) {
      let start = Math.floor(Date.parse(m[1]) / SLOT) * SLOT;
      if (fake.startOneEarly) start -= SLOT;
      const data = [];
      for (let i = 0; i < 96; i++) data.push(row(start + i * SLOT));
      return sendJson(res, 200, { data });
    }
    // Range, as the API serves it: the half hours from `from` up to `to`, at most 14 days.
    const r = /^\/intensity\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z)\/(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}Z)$/.exec(path);
    if (r) {
      const from = Date.parse(r[1]);
      const to = Date.parse(r[2]);
      if (to - from > 14 * 86_400_000 || to <= from)
        return sendJson(res, 400, { error: { code: '400 Bad Request', message: 'Date range must be at most 14 days' } });
      const data = [];
      for (let t = Math.floor(from / SLOT) * SLOT; t < to; t += SLOT) data.push(row(t));
      return sendJson(res, 200, { data });
    }
    sendJson(res, 400, { error: { code: '400 Bad Request', message: 'Please enter a valid date' } });
  });
  fake.url = fake.server.url;
  return fake;
}
