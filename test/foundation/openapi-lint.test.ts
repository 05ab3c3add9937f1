// The served OpenAPI document through Spectral's OpenAPI ruleset (spectral:oas, .spectral.yaml):
// no finding at all except the trailing slashes the spec itself writes (NOTES.md "Paths").
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../helpers/service.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SPEC_TRAILING_SLASHES = new Set(['/api/twin/', '/api/esg/', '/api/notifications/']);

let svc: TestService;
let dir: string;
before(async () => {
  svc = await startTestService();
  dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
});
after(async () => {
  await svc.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('Spectral (spectral:oas) finds nothing but the trailing slashes the spec writes', async () => {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, (await svc.request({ method: 'GET', url: '/openapi.json' })).body);
  const bin = join(root, 'node_modules', '.bin', 'spectral');
  // Spectral exits 1 when it reports anything at the fail severity; the JSON report says what.
  const out = await promisify(execFile)(
    bin,
    ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet', '--fail-severity', 'error'],
    {
      cwd: root,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
  const findings = JSON.parse(out.stdout || '[]') as { code: string; path: string[]; message: string }[];
  const unexpected = findings.filter((f) => !(f.code === 'path-keys-no-trailing-slash' && SPEC_TRAILING_SLASHES.has(f.path[1])));
  assert.deepEqual(
    unexpected.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`),
    [],
  );
  console.log(`spectral: ${findings.length} findings, all trailing slashes the spec writes`);
});
