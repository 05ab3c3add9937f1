// HTTP client side of the fault and load runs: one request with a hard timeout that never throws
// (a failure is an outcome: status 0 and the error code), access tokens, logins from a chosen
// loopback source address, the provisioning CLI, API keys, and the PASS/FAIL report.
import http from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';

export interface Answer {
  status: number; // 0 = no HTTP answer
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
  error?: string; // ECONNREFUSED, ECONNRESET, timeout, ...
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  agent?: http.Agent;
}

export function request(url: string, opts: RequestOptions = {}): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (a: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...a, ms: performance.now() - t0 });
    };
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = Buffer.byteLength(opts.body);
    }
    const req = http.request(url, { method: opts.method ?? 'GET', headers, agent: opts.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }));
      res.on('error', (e: NodeJS.ErrnoException) => done({ status: 0, headers: {}, body: '', error: e.code ?? e.message }));
    });
    const timer = setTimeout(() => {
      req.destroy();
      done({ status: 0, headers: {}, body: '', error: 'timeout' });
    }, opts.timeoutMs ?? 30_000);
    req.on('error', (e: NodeJS.ErrnoException) => done({ status: 0, headers: {}, body: '', error: e.code ?? e.message }));
    req.end(opts.body);
  });
}

export function json<T = any>(a: Answer): T | undefined {
  try {
    return JSON.parse(a.body) as T;
  } catch {
    return undefined;
  }
}

/** The `detail` (or error code) of an answer, for tallies. */
export function detailOf(a: Answer): string {
  const b = json<any>(a);
  if (!b) return '';
  if (typeof b.detail === 'string') return b.detail;
  return b.code ?? b.error?.code ?? '';
}

export const newSecret = () => randomBytes(32).toString('hex');

/** An access token as the identity module issues them (HS256 with the service's secret). */
export async function accessToken(secret: string, orgId: string, roles: string[], subject = `bench-${orgId}`, hours = 4): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ tenant_id: orgId, org_id: orgId, roles })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuedAt(now)
    .setExpirationTime(now + hours * 3600)
    .sign(new TextEncoder().encode(secret));
}

/** Runs the provisioning CLI (src/cli/index.ts) with this environment; its JSON answer. */
export function cli(args: string[], env: Record<string, string>): Promise<any> {
  const script = fileURLToPath(new URL('../../../src/cli/index.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [script, ...args], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`cli ${args.join(' ')}: ${stderr || err.message}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

/** POST /api/auth/login from a chosen loopback source address (the per-IP limit is 5 a minute). */
export async function login(base: string, email: string, password: string, localAddress = '127.0.0.1'): Promise<string> {
  const agent = new http.Agent({ localAddress } as http.AgentOptions);
  const a = await request(`${base}/api/auth/login`, { method: 'POST', body: JSON.stringify({ email, password }), agent });
  agent.destroy();
  if (a.status !== 200) throw new Error(`login ${email} from ${localAddress}: ${a.status} ${a.body}`);
  return json<{ access_token: string }>(a)!.access_token;
}

export async function createApiKey(
  base: string,
  adminToken: string,
  name: string,
  scopes: string[],
  environment = 'live',
): Promise<{ id: string; secret: string }> {
  const a = await request(`${base}/api/devtools/apikeys${environment === 'sandbox' ? '?environment=sandbox' : ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}` },
    body: JSON.stringify({ name, scopes }),
  });
  if (a.status !== 201) throw new Error(`create API key: ${a.status} ${a.body}`);
  const k = json<{ id: string; secret: string }>(a)!;
  return { id: k.id, secret: k.secret };
}

// ---------------------------------------------------------------------------------------------
// Report: exact correctness facts are PASS/FAIL (and fail the run); timed targets are read by a
// person and printed as "target met" / "target MISSED", never failing the run.

export function createReport(log: (s: string) => void = console.log) {
  let failures = 0;
  const lines: string[] = [];
  return {
    check(name: string, ok: boolean, detail = '') {
      if (!ok) failures++;
      const line = `${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` (${detail})` : ''}`;
      lines.push(line);
      log(line);
    },
    target(name: string, ok: boolean, detail = '') {
      const line = `target ${ok ? 'met   ' : 'MISSED'} ${name}${detail ? ` (${detail})` : ''}`;
      lines.push(line);
      log(line);
    },
    get failures() {
      return failures;
    },
    summary() {
      return lines;
    },
  };
}

export const ms = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${Math.round(n).toLocaleString('en-GB')} ms`);
export const secs = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? 'n/a' : `${(n / 1000).toFixed(1)} s`);

/** Counts of a key function over items, as "k1 n1, k2 n2". */
export function tally<T>(items: T[], key: (t: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) {
    const k = key(it);
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
export const showTally = (t: Record<string, number>) =>
  Object.entries(t)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none';

/** Seeded PRNG (mulberry32) for the chaos schedules. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function envInt(name: string, def: number): number {
  const v = process.env[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number (got "${v}")`);
  return n;
}
