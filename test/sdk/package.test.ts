// The SDK as a package: its generated types never drift from the service's OpenAPI document, the
// packed tarball installs into an empty project offline and works there on Node 24 (compiled
// JavaScript and declarations, the verify-webhook export, the bin), and the README's example is the
// file CI type-checks (packages/sdk/examples/readme.ts, in the root tsconfig).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { GENERATED_PATH, renderTypes } from '../../packages/sdk/scripts/generate-types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SDK = join(ROOT, 'packages/sdk');
let svc: TestService;
let dir: string;

before(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'eps-sdk-pack-'));
});
after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('the committed generated types are what openapi-typescript makes of the served document now', async () => {
  const doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  const fresh = (await renderTypes(doc)).split('\n');
  const committed = readFileSync(GENERATED_PATH, 'utf8').split('\n');
  const at = fresh.findIndex((line, i) => line !== committed[i]);
  assert.ok(
    at === -1 && fresh.length === committed.length,
    `packages/sdk/src/generated/openapi.ts is stale (first difference at line ${at + 1}: ${JSON.stringify(committed[at])} should be ${JSON.stringify(fresh[at])}): run npm run generate -w @energy-platform/sdk`,
  );
  // The generated paths cover the served operations.
  const text = committed.join('\n');
  for (const path of Object.keys(doc.paths)) assert.ok(text.includes(`    ${JSON.stringify(path)}: {`), path);
});

/** The tarball's runtime dependencies, transitively, as the repository installed them (its lockfile's versions). */
function dependencyDirs(): string[] {
  const locked = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')).packages as Record<string, { dependencies?: Record<string, string> }>;
  const found = new Map<string, string>();
  const pending = Object.keys(JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')).dependencies);
  while (pending.length) {
    const name = pending.pop()!;
    if (found.has(name)) continue;
    const key = locked[`packages/sdk/node_modules/${name}`] ? `packages/sdk/node_modules/${name}` : `node_modules/${name}`;
    assert.ok(locked[key], `${name} is in the repository's lockfile`);
    found.set(name, join(ROOT, key));
    pending.push(...Object.keys(locked[key].dependencies ?? {}));
  }
  return [...found.values()];
}

test('dist/ is built from the current source (npm ci builds it; after editing packages/sdk/src run npm run build -w @energy-platform/sdk)', () => {
  const stale: string[] = [];
  const walk = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)]));
  for (const src of walk(join(SDK, 'src')).filter((f) => f.endsWith('.ts'))) {
    const out = src.replace(`${join(SDK, 'src')}/`, `${join(SDK, 'dist')}/`).replace(/\.ts$/, '.js');
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(src).mtimeMs) stale.push(src.slice(SDK.length + 1));
  }
  assert.deepEqual(stale, [], 'sources newer than their build');
});

test('npm pack ships compiled JavaScript and declarations; installed offline into an empty project, Node 24 imports it and runs the bin', () => {
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: SDK, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const files: string[] = packed[0].files.map((f: { path: string }) => f.path);
  for (const f of [
    'dist/index.js',
    'dist/index.d.ts',
    'dist/verify-webhook.js',
    'dist/verify-webhook.d.ts',
    'dist/cli/main.js',
    'dist/generated/openapi.d.ts',
    'README.md',
    'package.json',
  ]) {
    assert.ok(files.includes(f), `${f} in the tarball`);
  }
  assert.deepEqual(
    files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')),
    [],
    'no TypeScript source',
  );

  // Nothing in the tarball runs at install time (a `prepare` there would call tsc on sources that are not shipped).
  const shipped = JSON.parse(execFileSync('tar', ['-xOzf', join(dir, packed[0].filename), 'package/package.json'], { encoding: 'utf8' }));
  assert.deepEqual(
    Object.keys(shipped.scripts ?? {}).filter((s) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(s)),
    [],
    'no install-time scripts in the published package.json',
  );

  // The empty project gets the tarball and its dependencies as the repository installed them, packed
  // from node_modules: the install needs no registry and no network (npm install --offline).
  const project = join(dir, 'consumer');
  execFileSync('mkdir', ['-p', join(project, 'deps')]);
  execFileSync('cp', [join(dir, packed[0].filename), join(project, 'sdk.tgz')]);
  const deps = JSON.parse(
    execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', join(project, 'deps'), ...dependencyDirs()], {
      cwd: project,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  assert.ok(deps.some((d: { name: string }) => d.name === 'openapi-fetch'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }));
  // An empty cache and --offline: nothing can come from a registry.
  execFileSync(
    'npm',
    [
      'install',
      '--offline',
      '--cache',
      join(dir, 'empty-cache'),
      '--ignore-scripts',
      '--no-audit',
      '--no-fund',
      './sdk.tgz',
      ...deps.map((d: { filename: string }) => `./deps/${d.filename}`),
    ],
    { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  assert.equal(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).dependencies['@energy-platform/sdk'], 'file:sdk.tgz');

  const secret = 'whsec_' + Buffer.from('k'.repeat(32)).toString('base64');
  const t = Math.floor(Date.now() / 1000);
  const body = '{"id":"evt_1","type":"webhook.test","created_at":"2026-01-01T00:00:00Z","organisation_id":"o","api_version":"2026-10-15","data":{}}';
  const sig = `t=${t},v1=${createHmac('sha256', Buffer.from('k'.repeat(32)))
    .update(`${t}.${body}`)
    .digest('base64')}`;
  const script = `
    import { verifyWebhook } from '@energy-platform/sdk/verify-webhook';
    import { createPlatform, ApiError, verifyWebhook as fromMain } from '@energy-platform/sdk';
    const event = verifyWebhook({ body: ${JSON.stringify(body)}, signature: ${JSON.stringify(sig)}, secret: ${JSON.stringify(secret)} });
    const platform = createPlatform({ baseUrl: 'http://127.0.0.1:9', credentials: { apiKey: 'k' }, retry: { retries: 0 } });
    console.log(JSON.stringify({ type: event.type, same: fromMain === verifyWebhook, client: typeof platform.partner.alerts, error: typeof ApiError,
      resolved: import.meta.resolve('@energy-platform/sdk/verify-webhook') }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: project, encoding: 'utf8' }));
  assert.equal(out.type, 'webhook.test');
  assert.equal(out.same, true);
  assert.equal(out.client, 'function');
  assert.match(out.resolved, /node_modules\/@energy-platform\/sdk\/dist\/verify-webhook\.js$/);

  const help = execFileSync(join(project, 'node_modules/.bin/energy-platform'), ['--help'], {
    cwd: project,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH}` },
  });
  for (const command of ['login', 'ingest', 'tail', 'history', 'keys', 'webhooks', 'export']) assert.match(help, new RegExp(`^  ${command}\\b`, 'm'));

  // The declarations type-check a consumer (the TypeScript of the repository, the package's own types).
  writeFileSync(join(project, 'use.ts'), readFileSync(join(SDK, 'examples/readme.ts'), 'utf8'));
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2023',
        strict: true,
        noEmit: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      files: ['use.ts'],
    }),
  );
  execFileSync(join(ROOT, 'node_modules/.bin/tsc'), ['-p', project], { cwd: project, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
});

test('the README example is examples/readme.ts, ten lines, the file the root type-check covers', () => {
  const readme = readFileSync(join(SDK, 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)![1];
  const example = readFileSync(join(SDK, 'examples/readme.ts'), 'utf8');
  assert.equal(block, example);
  assert.ok(example.trim().split('\n').length <= 11, 'about ten lines');
  const tsconfig = readFileSync(join(ROOT, 'tsconfig.json'), 'utf8');
  assert.match(tsconfig, /"packages\/sdk\/examples"/);
});
