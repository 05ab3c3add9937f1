// Shared pieces of the journey tests (test/journeys/): a customer's day walked through HTTP and the
// real protocol peers. Everything a journey expects is worked out here, independently of the
// service: the energy of what was sent (trapezoidal, cut at half hours and zero crossings, kept to
// the watt-hour), exact decimal money, an HTTPS webhook receiver with a certificate of its own.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { json, type TestService } from '../helpers/service.ts';
import type { RecordedRequest } from '../helpers/fake-server.ts';
import { Inbox } from '../helpers/signal.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

export const LONG = '3650d';
export const MIN = 60_000;
export const HH = 30 * MIN;
export const iso = (t: number) => new Date(t).toISOString();
export const clockOf = (svc: TestService) => svc.clock as ManualClock;

/** A client acting with one bearer token. */
export function client(svc: TestService, token: string) {
  const call = (method: string, url: string, payload?: unknown) =>
    svc.request({ method: method as 'GET', url, headers: { authorization: `Bearer ${token}` }, ...(payload !== undefined && { payload: payload as object }) });
  return {
    call,
    /** The answer's body after checking its status. */
    async ok(method: string, url: string, payload?: unknown, status = 200) {
      const res = await call(method, url, payload);
      assert.equal(res.statusCode, status, `${method} ${url}: ${res.body.slice(0, 800)}`);
      return res.statusCode === 204 ? null : /^application\/json/.test(String(res.headers['content-type'] ?? '')) ? json(res) : res.body;
    },
  };
}
export type Client = ReturnType<typeof client>;

// ---------------------------------------------------------------------------------------------
// Energy, worked out independently of the service (docs/energy-accounting.md, "The energy model").

export interface Sample {
  t: number;
  kw: number;
}

/** Per half hour (UTC start ms): energy of the positive and negative parts of power, kWh, unrounded. */
export function integrate(samples: Sample[], gapMs = 15 * MIN): Map<number, { pos: number; neg: number }> {
  const out = new Map<number, { pos: number; neg: number }>();
  const add = (slot: number, pos: number, neg: number) => {
    const e = out.get(slot) ?? { pos: 0, neg: 0 };
    e.pos += pos;
    e.neg += neg;
    out.set(slot, e);
  };
  const piece = (t0: number, p0: number, t1: number, p1: number) => {
    const h = (t1 - t0) / 3_600_000;
    const slot = Math.floor(t0 / HH) * HH;
    if (p0 >= 0 && p1 >= 0) add(slot, ((p0 + p1) / 2) * h, 0);
    else if (p0 <= 0 && p1 <= 0) add(slot, 0, ((-p0 - p1) / 2) * h);
    else if (p0 > 0) add(slot, (((p0 * p0) / (p0 - p1)) * h) / 2, (((p1 * p1) / (p0 - p1)) * h) / 2);
    else add(slot, (((p1 * p1) / (p1 - p0)) * h) / 2, (((p0 * p0) / (p1 - p0)) * h) / 2);
  };
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1];
    const b = samples[i];
    if (b.t - a.t > gapMs) continue;
    // Cut at half-hour boundaries, the power there interpolated.
    let t0 = a.t;
    let p0 = a.kw;
    while (t0 < b.t) {
      const cut = Math.min(b.t, (Math.floor(t0 / HH) + 1) * HH);
      const p1 = a.kw + ((b.kw - a.kw) * (cut - a.t)) / (b.t - a.t);
      piece(t0, p0, cut, p1);
      t0 = cut;
      p0 = p1;
    }
  }
  return out;
}

/** kWh to integer watt-hours, half away from zero (the ledger keeps each asset, flow and half hour so). */
export const wh = (kwh: number) => Math.sign(kwh) * Math.round(Math.abs(kwh) * 1000 + 1e-9);
/** Integer watt-hours as the API writes kWh (three places). */
export const kwhText = (w: number) => `${w < 0 ? '-' : ''}${Math.floor(Math.abs(w) / 1000)}.${String(Math.abs(w) % 1000).padStart(3, '0')}`;
/** The API's kWh text (or number) as integer watt-hours. */
export const whOf = (v: string | number | null | undefined) => (v === null || v === undefined || v === '' ? 0 : Math.round(Number(v) * 1000));

// ---------------------------------------------------------------------------------------------
// Money, exact: amounts as BigInt in 1e-9 of a penny.

const SCALE = 10n ** 9n;
/** Decimal text to 1e-9 units. */
export function dec(s: string | number): bigint {
  const t = typeof s === 'number' ? s.toString() : s;
  const neg = t.startsWith('-');
  const [w, f = ''] = t.replace('-', '').split('.');
  const v = BigInt(w || '0') * SCALE + BigInt((f + '000000000').slice(0, 9));
  return neg ? -v : v;
}
/** quantity × rate (both decimal text) in 1e-9 units. */
export const mul = (a: string, b: string) => (dec(a) * dec(b)) / SCALE;
/** 1e-9 units of pence rounded half away from zero to the penny, as £ text with two places. */
export function penniesToGbp(p: bigint): string {
  const neg = p < 0n;
  const abs = neg ? -p : p;
  const pence = (abs + SCALE / 2n) / SCALE;
  const s = `${pence / 100n}.${String(pence % 100n).padStart(2, '0')}`;
  return neg && pence !== 0n ? `-${s}` : s;
}
/** £ text to whole pence. */
export const pence = (gbp: string) => Number(dec(gbp) / (SCALE / 100n));
export const gbpOfPence = (p: number) => `${p < 0 ? '-' : ''}${Math.floor(Math.abs(p) / 100)}.${String(Math.abs(p) % 100).padStart(2, '0')}`;

// ---------------------------------------------------------------------------------------------
// CSV (RFC 4180) as an importing customer reads it.

export function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  const [head, ...body] = rows;
  return body.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

// ---------------------------------------------------------------------------------------------
// An HTTPS webhook receiver on loopback with a self-signed certificate the service's process is
// told to trust (tls.setDefaultCACertificates: the outbound client verifies certificates as it
// would in production; nothing is switched off).

export interface HttpsReceiver {
  url: string;
  requests: RecordedRequest[];
  received(n: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startHttpsReceiver(status = 204): Promise<HttpsReceiver> {
  const dir = mkdtempSync(join(tmpdir(), 'journey-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  const pem = { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
  rmSync(dir, { recursive: true, force: true });
  tls.setDefaultCACertificates([...tls.getCACertificates('default'), pem.cert]);
  const inbox = new Inbox<RecordedRequest>();
  const server = https.createServer(pem, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      inbox.push({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://127.0.0.1:${port}`,
    requests: inbox.items as RecordedRequest[],
    received: (n, what = `${n} request(s) at the HTTPS receiver`) => inbox.count(n, what),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
