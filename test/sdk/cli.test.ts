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

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts the binary; `done` resolves when it exits. */
function start(
  args: string[],
  opts: { stdin?: string; env?: Record<string, string> } = {},
): { child: ChildProcess; done: Promise<Run>; stdout: () => string; stderr: () => string } {
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

const run = (args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}) =>
  bounded(start(args, opts).done, `energy-platform ${args.join(' ')}`, 120_000);
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
    const files = existsSync(join(configDir, 'checkpoints')) ? readFileSyncDir(join(configDir, 'checkpoints')) : [];
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
  assert.doesNotMatch(stopped.stderr, /\{\w+\}/, 'no frame shows a placeholder, the first one included');

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
  return readdirSync(d)
    .filter((f) => f.endsWith('.json'))
    .map((f) => join(d, f));
}

test('tail shows the newest stored records, then follows the live stream (server-sent events) until its count; history as CSV, a table and --json; a bad asset type is exit 4', async () => {
  const now = svc.clock.now().getTime();
  const sdkIngest = (records: object[]) =>
    fetch(`${baseUrl}/api/telemetry/ingest`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${JSON.parse(readFileSync(join(configDir, 'session.json'), 'utf8')).session.accessToken}`,
      },
      body: JSON.stringify(records),
    }).then((r) => assert.equal(r.status, 200));
  await sdkIngest([
    { asset_id: 'tail-1', ts: new Date(now - 50 * 60_000).toISOString(), soc_pct: 40 },
    { asset_id: 'tail-1', ts: new Date(now - 40 * 60_000).toISOString(), soc_pct: 50 },
  ]);
  const tail = start(['tail', '--asset', 'tail-1', '--lines', '2', '--count', '4', '--json']);
  await eventually(() => tail.stdout().trim().split('\n').filter(Boolean).length >= 2, 'the two events already in the window', 60_000);
  await sdkIngest([
    { asset_id: 'tail-1', ts: new Date(now - 20 * 60_000).toISOString(), soc_pct: 70 },
    { asset_id: 'tail-2', ts: new Date(now - 20 * 60_000).toISOString(), soc_pct: 1 },
    { asset_id: 'tail-1', ts: new Date(now - 10 * 60_000).toISOString(), soc_pct: 80 },
  ]);
  const tailed = await bounded(tail.done, 'tail', 60_000);
  assert.equal(tailed.code, 0, tailed.stderr);
  const events = tailed.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    events.map((e) => [e.asset_id, e.soc_pct]),
    [
      ['tail-1', 40],
      ['tail-1', 50],
      ['tail-1', 70],
      ['tail-1', 80],
    ],
  );

  const csv = await run(['history', 'battery', 'tail-1', '--range', 'hourly', '--format', 'csv']);
  assert.equal(csv.code, 0, csv.stderr);
  const json = await run(['history', 'battery', 'tail-1', '--json']);
  assert.equal(json.code, 0, json.stderr);
  const h = lastJson(json.stdout);
  assert.equal(h.metric, 'soc');
  assert.deepEqual(h.summary, { count: 4, min: 40, max: 80, avg: 60, latest: 80 });
  // The CSV is the series: a header, then one `t,v` line per bucket.
  assert.ok(h.series.length >= 1);
  assert.deepEqual(csv.stdout.trim().split('\n'), ['t,v', ...h.series.map((p: { t: string; v: number }) => `${p.t},${p.v}`)]);
  const tableOut = await run(['history', 'battery', 'tail-1']);
  assert.match(tableOut.stdout, /^t\s+v \(%\)$/m);
  assert.match(tableOut.stdout, /count 4 {2}min 40 {2}max 80 {2}avg 60 {2}latest 80/);
  const bad = await run(['history', 'boiler', 'tail-1', '--json']);
  assert.equal(bad.code, 4, bad.stderr);
  assert.equal(lastJson(bad.stdout).status, 422);
});

test('keys and webhooks: create (secret shown once), list, rotate, revoke/delete; an unknown id is exit 4', async () => {
  const created = await run(['keys', 'create', '--name', 'cli key', '--scopes', 'alerts:read,devices:read', '--json']);
  assert.equal(created.code, 0, created.stderr);
  const key = lastJson(created.stdout);
  assert.match(key.secret, /^plat_live_/);
  const listed = lastJson((await run(['keys', 'list', '--json'])).stdout);
  const mine = listed.find((k: { id: string }) => k.id === key.id);
  assert.deepEqual(mine.scopes, ['alerts:read', 'devices:read']);
  assert.equal(JSON.stringify(listed).includes(key.secret), false, 'never shown again');
  // The key works for the partner API through the CLI's client too (--api-key).
  const human = await run(['keys', 'list']);
  assert.match(human.stdout, /cli key/);
  const revoked = await run(['keys', 'revoke', key.id, '--json']);
  assert.equal(revoked.code, 0, revoked.stderr);
  assert.ok(lastJson((await run(['keys', 'list', '--json'])).stdout).find((k: { id: string }) => k.id === key.id).revoked_at);
  assert.equal((await run(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'])).code, 4);

  const hook = await run(['webhooks', 'create', 'https://127.0.0.1:9/hook', '--events', 'alert.raised', '--json']);
  assert.equal(hook.code, 0, hook.stderr);
  const endpoint = lastJson(hook.stdout);
  assert.match(endpoint.secret, /^whsec_/);
  const hooks = lastJson((await run(['webhooks', 'list', '--json'])).stdout);
  assert.deepEqual(
    hooks.map((e: { id: string; event_types: string[] }) => [e.id, e.event_types]),
    [[endpoint.id, ['alert.raised']]],
  );
  const disabled = await run(['webhooks', 'update', endpoint.id, '--disable', '--json']);
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.equal(lastJson(disabled.stdout).enabled, false);
  const rotated = lastJson((await run(['webhooks', 'rotate-secret', endpoint.id, '--json'])).stdout);
  assert.notEqual(rotated.secret, endpoint.secret);
  assert.equal((await run(['webhooks', 'delete', endpoint.id])).code, 0);
  assert.deepEqual(lastJson((await run(['webhooks', 'list', '--json'])).stdout), []);
  assert.equal((await run(['webhooks', 'delete', endpoint.id])).code, 4);
});

test('export: starts the job, follows it with a progress bar, writes the JSON Lines; logout ends the session (exit 3 after)', async () => {
  const from = new Date(svc.clock.now().getTime() - 30 * 86_400_000).toISOString();
  const to = new Date(svc.clock.now().getTime() - 30 * 86_400_000 + 600_000).toISOString();
  const output = join(dir, 'export.jsonl');
  const exp = start(['export', '--collections', 'telemetry.readings', '--from', from, '--to', to, '-o', output, '--interval', '100', '--json']);
  // The service's job queue runs on the test clock: run what is due until the CLI has its file.
  let exited = false;
  void exp.done.then(() => {
    exited = true;
  });
  while (!exited) {
    await svc.runDue();
    await new Promise((r) => setTimeout(r, 50));
  }
  const done = await exp.done;
  assert.equal(done.code, 0, done.stderr);
  const summary = lastJson(done.stdout);
  const lines = readFileSync(output, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  // Records of the 100,000-row file fall one a second from `from`: 600 in the ten minutes, less the bad row 5.
  assert.equal(summary.rows, 599);
  assert.equal(lines.length, 599);
  assert.ok(lines.every((l) => l.collection === 'telemetry.readings' && /^cli-dev-\d+$/.test(l.row.asset_id)));
  assert.equal(new Set(lines.map((l) => l.row.ts)).size, 599);
  assert.equal(summary.bytes, readFileSync(output).length);
  assert.match(done.stderr, /export \[[█░]*\] \d+% \| \d+\/\d+ rows/);
  assert.doesNotMatch(done.stderr, /\{\w+\}/, 'no frame shows a placeholder');

  // The same rows as CSV (RFC 4180, a header row), the format the API offers per collection.
  const follow = async (args: string[]) => {
    const child = start(args);
    let ended = false;
    void child.done.then(() => {
      ended = true;
    });
    while (!ended) {
      await svc.runDue();
      await new Promise((r) => setTimeout(r, 50));
    }
    return child;
  };
  const csvFile = join(dir, 'readings.csv');
  const csvRun = await (
    await follow(['export', '--format', 'csv', '--collections', 'telemetry.readings', '--from', from, '--to', to, '-o', csvFile, '--interval', '100', '--json'])
  ).done;
  assert.equal(csvRun.code, 0, csvRun.stderr);
  assert.equal(lastJson(csvRun.stdout).format, 'csv');
  const csvLines = readFileSync(csvFile, 'utf8').trimEnd().split('\r\n');
  assert.equal(csvLines.length, 1 + 599, 'a header and one line a row');
  assert.match(csvLines[0], /(^|,)asset_id(,|$)/);
  assert.equal(csvLines.slice(1).filter((l) => /cli-dev-\d+/.test(l)).length, 599);
  // Several collections as CSV need a directory: refused before any job starts.
  const several = await run(['export', '--format', 'csv', '-o', join(dir, 'one-file.csv'), '--json']);
  assert.equal(several.code, 2, several.stderr);
  assert.match(several.stderr, /CSV is one file per collection/);

  // A reader that stops early (`| head -c 100`) ends the output: exit 0, no stack trace.
  const piped = start(['export', '--collections', 'telemetry.readings', '--from', from, '--to', to, '-o', '-', '--interval', '100', '--no-progress']);
  piped.child.stdout!.once('data', () => piped.child.stdout!.destroy());
  let pipedEnded = false;
  void piped.done.then(() => {
    pipedEnded = true;
  });
  while (!pipedEnded) {
    await svc.runDue();
    await new Promise((r) => setTimeout(r, 50));
  }
  const headed = await piped.done;
  assert.equal(headed.code, 0, headed.stderr);
  assert.doesNotMatch(headed.stderr, /EPIPE|Error|\n\s+at /);

  assert.equal((await run(['logout'])).code, 0);
  assert.ok(!existsSync(join(configDir, 'session.json')));
  const after = await run(['keys', 'list', '--json']);
  assert.equal(after.code, 3);
  assert.match(lastJson(after.stdout).error, /energy-platform login/);
});
