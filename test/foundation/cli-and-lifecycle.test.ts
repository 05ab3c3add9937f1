// The provisioning CLI, the embedded store's lock against a running server, and graceful shutdown.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { realServers, startTestService } from '../helpers/service.ts';
import { fixtureModule, held } from '../helpers/fixtures.ts';
import { bounded, deferred } from '../helpers/signal.ts';
import { eventually } from '../helpers/eventually.ts';

const dir = mkdtempSync(join(tmpdir(), 'eps-cli-'));
after(() => rmSync(dir, { recursive: true, force: true }));
// The CLI and `npm start -- --help` below run on the embedded store (or none) whatever the suite's
// store: the real-servers run skips them rather than repeat the embedded run's work.
const embeddedOnly = !!realServers.database && 'the embedded store only';
const baseEnv = { ...process.env, DATA_DIR: dir, NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: '', REDIS_URL: '', NATS_URL: '' };

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['src/cli/index.ts', ...args], { env: baseEnv, encoding: 'utf8' });
  // Errors are one JSON line on stderr, then (for usage errors) the usage text.
  const first = r.stderr.split('\n')[0];
  const err = first.startsWith('{') ? (JSON.parse(first).error as string) + r.stderr.slice(first.length) : r.stderr;
  return { status: r.status, out: r.stdout ? JSON.parse(r.stdout) : null, err };
}

function startServer(preload: string[] = []): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...preload, 'src/main.ts'], { env: { ...baseEnv, PORT: '0' } });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      // The demo login line is printed last, after the signal handlers are in place.
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m && out.includes('"password"')) resolve({ child, url: m[1], output: () => out });
    });
    child.stderr!.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
}

describe('provisioning CLI on the embedded store', { skip: embeddedOnly }, () => {
  test('org create prints the organisation as JSON', () => {
    const r = cli('org', 'create', '--id', 'acme', '--name', 'Acme Ltd', '--modules', 'field,ems/routing');
    assert.equal(r.status, 0, r.err);
    assert.equal(r.out.id, 'acme');
    assert.deepEqual(r.out.modules, ['ems/routing', 'field']);
  });

  test('user create makes a user; a second create adds a membership to the same user', () => {
    cli('org', 'create', '--id', 'other', '--name', 'Other');
    const a = cli('user', 'create', '--org', 'acme', '--email', 'ops@acme.example', '--password', 'long-enough-password', '--role', 'OPERATOR');
    assert.equal(a.status, 0, a.err);
    assert.equal(a.out.created, true);
    const b = cli('user', 'create', '--org', 'other', '--email', 'ops@acme.example', '--role', 'VIEWER', '--staff');
    assert.equal(b.status, 0, b.err);
    assert.equal(b.out.created, false);
    assert.equal(b.out.id, a.out.id);
    assert.equal(b.out.platform_staff, true);
    assert.deepEqual(b.out.memberships, [
      { org_id: 'acme', role: 'OPERATOR' },
      { org_id: 'other', role: 'VIEWER' },
    ]);
  });

  test('bad input is refused with a clear message and a non-zero exit', () => {
    assert.match(cli('org', 'create', '--id', 'Bad Id!', '--name', 'x').err, /--id must be/);
    assert.match(cli('org', 'create', '--id', 'ok-id', '--name', 'x', '--modules', 'billing').err, /unknown module "billing"/);
    assert.match(cli('user', 'create', '--org', 'acme', '--email', 'x@y.z', '--password', 'p', '--role', 'ORG_ADMIN').err, /at least 12/);
    assert.match(cli('user', 'create', '--org', 'nope', '--email', 'x@y.z', '--password', 'long-enough-pass', '--role', 'VIEWER').err, /does not exist/);
    assert.match(cli('user', 'create', '--org', 'acme', '--email', 'x@y.z', '--password', 'long-enough-pass', '--role', 'KING').err, /--role must be/);
    const r = cli('frobnicate');
    assert.equal(r.status, 2);
    assert.match(r.err, /usage:/);
  });

  test('org list shows what was created', () => {
    const r = cli('org', 'list');
    assert.deepEqual(
      r.out.map((o: { id: string }) => o.id),
      ['acme', 'other'],
    );
  });

  test('job-units list and release: the failing units of cross-organisation jobs (decision 0285)', () => {
    assert.deepEqual(cli('job-units', 'list', '--quarantined').out, []);
    assert.deepEqual(cli('job-units', 'release', '--kind', 'energy.refresh', '--org', 'acme').out, { released: [] });
    const r = cli('job-units', 'release');
    assert.equal(r.status, 2);
    assert.match(r.err, /--kind is required/);
  });

  test('while the server holds the store the CLI refuses; after SIGTERM it works again and nothing was lost', async () => {
    const server = await startServer();
    try {
      assert.match(server.output(), /Demo organisation demo-energy/);
      assert.match(server.output(), /"email":"admin@demo-energy.example"/);
      const r = cli('org', 'create', '--id', 'late', '--name', 'Late');
      assert.equal(r.status, 3);
      assert.match(r.err, /in use by a running server/);
      const ready = await fetch(`${server.url}/api/telemetry/readyz`);
      assert.equal(ready.status, 200);
    } finally {
      server.child.kill('SIGTERM');
      const code = await new Promise((r) => server.child.on('exit', (c, s) => r(c ?? s)));
      assert.equal(code, 0, 'graceful shutdown exits 0');
    }
    assert.equal(existsSync(join(dir, 'service.lock')), false, 'the lock is released');
    const after = cli('org', 'list');
    assert.deepEqual(
      after.out.map((o: { id: string }) => o.id),
      ['acme', 'demo-energy', 'other'],
    );
  });

  test('last resort (decision 0270): an unhandled rejection is logged and counted and the service carries on; an uncaught exception stops it gracefully, exit 1', async () => {
    const server = await startServer(['--import', './test/helpers/process-faults.ts']);
    const exited = new Promise((r) => server.child.on('exit', (c, s) => r(c ?? s)));
    try {
      server.child.stdin!.write('reject\n');
      await eventually(async () => {
        const m = await (await fetch(`${server.url}/api/telemetry/metrics`)).text();
        return m.includes('eps_uncaught_entry_errors_total{entry="process.unhandledRejection"} 1');
      }, 'the rejection counted');
      const live = await fetch(`${server.url}/api/telemetry/healthz`);
      assert.equal(live.status, 200);
      server.child.stdin!.write('throw\n');
      assert.equal(await exited, 1, 'an uncaught exception ends the service with exit 1, after stopping it');
    } finally {
      server.child.kill('SIGTERM');
      await exited;
    }
    assert.equal(existsSync(join(dir, 'service.lock')), false, 'stopped as on SIGTERM: the lock is released');
  });

  test('a stale lock left by a crashed process is taken over', async () => {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, 'service.lock'), '999999\nserver\n');
    assert.equal(cli('org', 'list').status, 0);
  });
});

describe('graceful shutdown', () => {
  test('an in-flight request finishes; new connections are refused from the moment stop begins', async () => {
    const svc = await startTestService({ extraModules: [fixtureModule] });
    const address = await svc.app.listen({ port: 0, host: '127.0.0.1' });
    // Told when the listener is closed (stop's first step), so the test never guesses with a sleep.
    const server = svc.app.server;
    const listenerClosed = deferred();
    const close = server.close.bind(server);
    server.close = ((cb?: (err?: Error) => void) => {
      const out = close(cb);
      listenerClosed.resolve();
      return out;
    }) as typeof server.close;
    const inflight = new Promise<{ status: number; body: string }>((resolve, reject) => {
      // Connection: close, so stop need not wait for the client to drop an idle keep-alive socket.
      http
        .get(`${address}/api/test-fixture/held`, { agent: false }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        })
        .on('error', reject);
    });
    await held.entered.count(1, 'the request reaches its handler');
    let stoppedYet = false;
    const stopped = svc.stop().then(() => (stoppedYet = true));
    await bounded(listenerClosed.promise, 'stop closes the listener');
    await assert.rejects(fetch(`${address}/api/telemetry/healthz`), 'no new connection once stop has begun');
    assert.equal(stoppedYet, false, 'stop waits for the request in flight');
    held.release();
    const res = await inflight;
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { ok: true });
    await stopped;
  });
});

test('--help answers for every command, each group and the whole CLI, without opening the store', { skip: embeddedOnly }, () => {
  // An unreachable store: help must not need it.
  const env = { ...baseEnv, DATABASE_URL: 'postgres://127.0.0.1:1/unreachable' };
  const run = (...args: string[]) => spawnSync(process.execPath, ['src/cli/index.ts', ...args], { env, encoding: 'utf8' });
  const commands = ['org create', 'org modules', 'org list', 'user create', 'seed-demo', 'job-units list', 'job-units release', 'migrate'];
  for (const command of commands) {
    const r = run(...command.split(' '), command === 'org list' ? '-h' : '--help');
    assert.equal(r.status, 0, `${command}: ${r.stderr}`);
    assert.equal(r.stderr, '');
    assert.ok(r.stdout.startsWith(`usage: cli ${command}`), r.stdout);
    if (command === 'user create') assert.match(r.stdout, /--role ROLE +ORG_ADMIN, OPERATOR, ANALYST or VIEWER/);
  }
  const all = run('--help');
  assert.equal(all.status, 0);
  const listed = [...all.stdout.matchAll(/^ {2}(\S+(?: (?:create|modules|list|release))?) {2,}/gm)].map((m) => m[1]);
  assert.deepEqual(listed, commands, 'the overview lists every command');
  assert.equal(run('help').stdout, all.stdout);
  const org = run('org', '--help');
  assert.equal(org.status, 0);
  assert.deepEqual(
    [...org.stdout.matchAll(/^ {2}(org \w+)/gm)].map((m) => m[1]),
    ['org create', 'org modules', 'org list'],
  );
  const unknown = run('frobnicate', '--help');
  assert.equal(unknown.status, 2);
  assert.equal(JSON.parse(unknown.stderr.split('\n')[0]).error, 'unknown command "frobnicate"');
});

test('npm start -- --help prints the settings the service reads and exits 0 without starting anything', { skip: embeddedOnly }, () => {
  const r = spawnSync(process.execPath, ['src/main.ts', '--help'], { env: { ...baseEnv, PORT: '1' }, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Energy Platform Service\n/);
  const listed = r.stdout
    .split('\n')
    .filter((l) => /^ {2}[A-Z][A-Z0-9_]+$/.test(l))
    .map((l) => l.trim());
  for (const name of ['PORT', 'HOST', 'DATABASE_URL', 'JWT_SECRET', 'HUB_OCPP_PUBLIC_URL', 'LIVE_STREAMS_PER_USER']) assert.ok(listed.includes(name), name);
  assert.doesNotMatch(r.stdout, /listening/i, 'no server was started (PORT 1 would have failed to bind)');
});
