// The release on a bare machine (issue 42; not part of `npm test`, it is slow): after
// `npm run release`, checks dist/release/SHA256SUMS, unpacks the archive into an empty directory
// and runs the executable there with nothing but PATH=/usr/bin:/bin in its environment (no node,
// no npm reachable): provisions an organisation and a user with the CLI, starts `serve` on the
// embedded store, signs in, ingests, reads the records back, stops it with SIGTERM. Prints the
// archive and executable size, the start time (spawn to ready), and the idle RSS.
//
//   npm run release && node bench/release-check.ts [--idle-seconds=30] [--keep] [--dist=DIR] [--env=NAME=VALUE ...]
//                                                 [--variant='NAME=VALUE;NAME=VALUE' ...]
//
// --env adds a variable to the environment `serve` runs with (repeat it for several), to measure a
// setting without building again (e.g. --env=PGLITE_SHARED_BUFFERS_MB=8). Each --variant (empty for
// none) is one more start of `serve` on the same data directory with those variables added, one
// after the other, to compare settings without provisioning again.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machine } from './lib/stats.ts';

const argv = process.argv.slice(2);
const args = Object.fromEntries(
  argv.map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
/** --env=NAME=VALUE, each: added to serve's environment. */
const serveEnv = Object.fromEntries(
  argv
    .filter((a) => a.startsWith('--env='))
    .map((a) => {
      const kv = a.slice('--env='.length);
      const i = kv.indexOf('=');
      if (i <= 0) throw new Error(`--env wants NAME=VALUE, got ${kv}`);
      return [kv.slice(0, i), kv.slice(i + 1)];
    }),
);
const IDLE_S = Number(args['idle-seconds'] ?? 30);
const OUT = resolve(args.dist ?? join(dirname(fileURLToPath(import.meta.url)), '../dist/release'));
const PORT = 18000 + (process.pid % 2000);
const BASE = `http://127.0.0.1:${PORT}`;
const ORG = 'release-check';
const EMAIL = 'ops@release-check.example';
const PASSWORD = 'release-check-password-1';

/** The running service, stopped by fail() too (process.exit skips finally blocks). */
let running: ChildProcess | undefined;

function fail(msg: string): never {
  console.error(`release-check: FAILED: ${msg}`);
  running?.kill('SIGKILL');
  process.exit(1);
}

function check(cond: unknown, msg: string): asserts cond {
  if (!cond) fail(msg);
}

// 1. The checksums, then the archive unpacked into an empty directory.
const sums = readFileSync(join(OUT, 'SHA256SUMS'), 'utf8').trim().split('\n');
for (const line of sums) {
  const [hash, file] = line.split(/\s+/);
  const actual = createHash('sha256')
    .update(readFileSync(join(OUT, file)))
    .digest('hex');
  check(actual === hash, `checksum of ${file}: ${actual}, SHA256SUMS says ${hash}`);
}
const archive = readdirSync(OUT).find((f) => f.endsWith('-linux-x64.tar.gz'));
check(archive, `no release archive in ${OUT}: run npm run release`);
const dir = mkdtempSync(join(tmpdir(), 'eps-release-'));
const env = { PATH: '/usr/bin:/bin', HOME: dir, DATA_DIR: join(dir, 'data'), PORT: String(PORT) };
const untar = spawnSync('tar', ['-xzf', join(OUT, archive), '-C', dir], { env });
check(untar.status === 0, `tar: ${untar.stderr}`);
const home = join(dir, archive.replace(/\.tar\.gz$/, ''));
const exe = join(home, 'energy-platform');
// This machine has a Node in /usr/bin (Debian's): as root, each run of the release gets its own
// mount namespace where /usr/bin/node and /usr/lib/node_modules (npm) are masked, so nothing it
// does can reach them.
const MASK = ['/usr/bin/node', '/usr/bin/nodejs', '/usr/lib/node_modules'];
const masked = process.getuid?.() === 0 && spawnSync('unshare', ['--version'], { env }).status === 0;
const script = `${MASK.map((p) => `if [ -d ${p} ]; then mount -t tmpfs none ${p}; elif [ -e ${p} ]; then mount --bind /dev/null ${p}; fi`).join('; ')}; exec "$@"`;
function argvOf(cmd: string, argv: string[]): [string, string[]] {
  return masked ? ['unshare', ['--mount', '--propagation', 'private', 'sh', '-c', script, 'sh', cmd, ...argv]] : [cmd, argv];
}
for (const tool of ['node', 'npm', 'npx']) {
  const [c, a] = argvOf('sh', ['-c', `${tool} --version`]);
  const r = spawnSync(c, a, { env });
  if (r.status !== 0) continue;
  check(!masked, `${tool} runs on the test's PATH`);
  console.warn(`release-check: warning: ${tool} runs on the test's PATH (not root: cannot mask it)`);
}

// 2. Provisioning with the CLI, on the embedded store in DATA_DIR.
function cli(...argv: string[]) {
  const t = performance.now();
  const [c, a] = argvOf(exe, argv);
  const r = spawnSync(c, a, { env, cwd: home, encoding: 'utf8' });
  check(r.status === 0, `energy-platform ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  return { out: JSON.parse(r.stdout) as Record<string, unknown>, ms: performance.now() - t };
}
const org = cli('org', 'create', '--id', ORG, '--name', 'Release check');
check(org.out.id === ORG, `org create answered ${JSON.stringify(org.out)}`);
cli('user', 'create', '--org', ORG, '--email', EMAIL, '--password', PASSWORD, '--role', 'ORG_ADMIN');

// 3. The service: once, or once per --variant on the same data directory.
async function call(method: string, path: string, body?: unknown, token?: string) {
  const res = await fetch(`${BASE}${path}`, {
    method,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...(token && { authorization: `Bearer ${token}` }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Starts serve with these variables added, uses it as a user would, waits, measures, stops it. */
async function serveOnce(added: Record<string, string>, meter: string) {
  const t0 = performance.now();
  const [serveCmd, serveArgv] = argvOf(exe, ['serve']);
  const child: ChildProcess = spawn(serveCmd, serveArgv, { env: { ...env, ...added }, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (d: Buffer) => (log += d));
  child.stderr?.on('data', (d: Buffer) => (log += d));
  running = child;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let readyMs = 0;
  for (;;) {
    if (child.exitCode !== null) fail(`serve exited ${child.exitCode}:\n${log}`);
    const ok = await fetch(`${BASE}/api/telemetry/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) {
      readyMs = performance.now() - t0;
      break;
    }
    if (performance.now() - t0 > 120_000) fail(`not ready after 120 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let memory: string[];
  try {
    const login = await call('POST', '/api/auth/login', { email: EMAIL, password: PASSWORD });
    check(login.status === 200 && typeof login.body.access_token === 'string', `login: ${login.status} ${JSON.stringify(login.body)}`);
    const token = login.body.access_token as string;
    const now = Date.now();
    const records = [0, 1, 2].map((i) => ({ asset_id: meter, ts: new Date(now - (3 - i) * 60_000).toISOString(), power_kw: 1.5 + i }));
    const ingest = await call('POST', '/api/telemetry/ingest', records, token);
    check(ingest.status === 200 && ingest.body.stored === 3, `ingest: ${ingest.status} ${JSON.stringify(ingest.body)}`);
    const history = await call('GET', `/api/telemetry/assets/smart-meter/${meter}/history?range=live&metric=import`, undefined, token);
    const summary = history.body.summary as { count?: number; max?: number } | undefined;
    check(history.status === 200 && summary?.count === 3 && summary.max === 3.5, `history: ${history.status} ${JSON.stringify(history.body)}`);
    const consoleIndex = await fetch(`${BASE}/`);
    check(consoleIndex.status === 200 && (await consoleIndex.text()).includes('<html'), `console: ${consoleIndex.status}`);
    const docs = await fetch(`${BASE}/docs/`);
    check(docs.status === 200, `API reference: ${docs.status}`);

    // 4. Idle: what the process holds once the start-up work (schema compilation, jobs) is over.
    await new Promise((r) => setTimeout(r, IDLE_S * 1000));
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    const metrics = await fetch(`${BASE}/api/telemetry/metrics`).then((r) => r.text());
    const gauge = (name: string) => Number(new RegExp(`^eps_${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(metrics)?.[1] ?? Number.NaN);
    const parts = memoryParts(child.pid!);
    const mib = (b: number) => (b / 2 ** 20).toFixed(0);
    memory = [
      `serve: spawn to ready ${(readyMs / 1000).toFixed(2)} s`,
      `idle after ${IDLE_S} s: RSS ${(kb('VmRSS') / 1024).toFixed(0)} MiB (anon ${(kb('RssAnon') / 1024).toFixed(0)}, file ${(kb('RssFile') / 1024).toFixed(0)}), peak ${(kb('VmHWM') / 1024).toFixed(0)} MiB`,
      `where (resident MiB): WASM memory ${mib(parts.wasm)}, malloc arenas ${mib(parts.arenas)} (+ main heap ${mib(parts.brk)}), other anonymous ${mib(parts.otherAnon)}, files ${mib(parts.file)}; ` +
        `service thread's V8 heap ${mib(gauge('nodejs_heap_size_used_bytes'))} used of ${mib(gauge('nodejs_heap_size_total_bytes'))}, external ${mib(gauge('nodejs_external_memory_bytes'))}`,
    ];
  } catch (e) {
    child.kill('SIGKILL');
    throw e;
  } finally {
    if (child.exitCode === null) child.kill('SIGTERM');
  }
  const code = await exited;
  running = undefined;
  check(code === 0, `serve exited ${code} on SIGTERM:\n${log.slice(-2000)}`);
  return memory;
}

/** --variant=NAME=VALUE;NAME=VALUE (repeat it; empty for none): serve once per variant, same data directory. */
const variants = argv
  .filter((a) => a.startsWith('--variant='))
  .map((a) =>
    Object.fromEntries(
      a
        .slice('--variant='.length)
        .split(';')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    ),
  );
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
const runs = variants.length ? variants : [serveEnv];
const results: string[][] = [];
for (const [i, added] of runs.entries()) results.push(await serveOnce({ ...serveEnv, ...added }, `release-meter-${i + 1}`));
console.log(`release-check: OK on ${await machine()}`);
console.log(`  archive ${archive}: ${mb(statSync(join(OUT, archive)).size)}; executable ${mb(statSync(exe).size)}`);
console.log(`  CLI org create (migrates a new store): ${(org.ms / 1000).toFixed(2)} s`);
for (const [i, added] of runs.entries()) {
  const named = Object.entries(added).map(([k, v]) => `${k}=${v}`);
  if (named.length || runs.length > 1) console.log(`  serve with ${named.join(' ') || 'nothing added'}:`);
  for (const line of results[i]) console.log(`  ${line}`);
}
console.log('  stopped on SIGTERM, exit 0');
if (args.keep !== 'true') rmSync(dir, { recursive: true, force: true });
else console.log(`  kept ${dir}`);

/**
 * The process's resident memory by kind, from /proc/PID/smaps: the WebAssembly memory (PGlite's
 * PostgreSQL; the read-write part of a reservation of a gibibyte or more), glibc's thread arenas
 * (64 MiB-aligned heaps), the main arena (brk), other anonymous memory (V8's heaps and code, thread
 * stacks) and file-backed pages (the executable).
 */
function memoryParts(pid: number) {
  type Map = { start: number; end: number; perms: string; path: string; rss: number };
  const maps: Map[] = [];
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) maps.push({ start: Number.parseInt(head[1], 16), end: Number.parseInt(head[2], 16), perms: head[3], path: head[4], rss: 0 });
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length) maps[maps.length - 1].rss = Number(rss[1]) * 1024;
  }
  const ARENA = 64 * 2 ** 20;
  const out = { wasm: 0, arenas: 0, brk: 0, otherAnon: 0, file: 0 };
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    const reservedAfter = next && next.start === m.end && next.perms.startsWith('---') ? next.end - next.start : 0;
    if (m.path.startsWith('/')) out.file += m.rss;
    else if (m.path === '[heap]') out.brk += m.rss;
    else if (reservedAfter >= 2 ** 30) out.wasm += m.rss;
    else if (m.start % ARENA === 0 && m.end - m.start + reservedAfter === ARENA) out.arenas += m.rss;
    else out.otherAnon += m.rss;
  });
  return out;
}
