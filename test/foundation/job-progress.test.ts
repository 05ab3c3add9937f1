// One progress shape (issue 42, decision 0451): every member named `progress` anywhere in the
// served OpenAPI document is the kit's JobProgress ({done, total, unit, percent}), so export runs,
// ledger rebuilds, backtests, study runs and buffer replays are followed one way. A module that
// answers progress as 0..1, 0..100 or a per-cent member of its own fails here.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, json, type TestService } from '../helpers/service.ts';
import { jobProgress } from '../../src/kit/progress.ts';

let svc: TestService;
let doc: any;
before(async () => {
  svc = await startTestService();
  doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
});
after(() => svc?.stop());

test('jobProgress: whole per cent rounded down, 100 only when done, 100 for an empty job, null while the total is unknown', () => {
  assert.deepEqual(jobProgress(0, 41, 'rows'), { done: 0, total: 41, unit: 'rows', percent: 0 });
  assert.deepEqual(jobProgress(14, 41, 'rows'), { done: 14, total: 41, unit: 'rows', percent: 34 }); // 34.1
  assert.deepEqual(jobProgress(40, 41, 'rows'), { done: 40, total: 41, unit: 'rows', percent: 97 }); // 97.6, not 98
  assert.deepEqual(jobProgress(999, 1000, 'rows').percent, 99, 'never 100 before the last unit');
  assert.deepEqual(jobProgress(0, 0, 'days'), { done: 0, total: 0, unit: 'days', percent: 100 });
  assert.deepEqual(jobProgress(45, 41, 'rows'), { done: 45, total: 41, unit: 'rows', percent: 100 }, 'rows gained meanwhile: done may pass total');
  assert.deepEqual(jobProgress(4, null, 'readings'), { done: 4, total: null, unit: 'readings', percent: null });
});

/** Every schema reachable in the document, with where it is. */
function* schemas(node: unknown, where: string): Generator<[string, any]> {
  if (!node || typeof node !== 'object') return;
  yield [where, node];
  for (const [k, v] of Object.entries(node)) yield* schemas(v, `${where}/${k}`);
}

test('every `progress` member the API answers is the one JobProgress shape', () => {
  const found: string[] = [];
  const wrong: string[] = [];
  for (const [where, s] of schemas(doc.paths, '#/paths')) {
    const p = s?.properties?.progress;
    if (!p) continue;
    found.push(where);
    const members = Object.keys(p.properties ?? {}).sort();
    if (p.type !== 'object' || JSON.stringify(members) !== JSON.stringify(['done', 'percent', 'total', 'unit'])) {
      wrong.push(`${where}: progress is ${JSON.stringify(p.type ?? p.anyOf ?? p)} with ${members.join(',') || 'no members'}`);
    }
  }
  assert.deepEqual(wrong, []);
  // The guard is not empty: the long jobs each answer progress.
  for (const path of [
    '/api/organisations/export/jobs/{job_id}',
    '/api/telemetry/sites/{site_id}/ledger',
    '/api/optimiser/forecasting/sites/{site_id}/backtest/{backtest_id}',
    '/api/hardware/ems/buffer/{site_id}/status',
  ]) {
    assert.ok(
      found.some((w) => w.startsWith(`#/paths/${path.replaceAll('/', '~1')}`) || w.startsWith(`#/paths/${path}`)),
      `${path} answers progress`,
    );
  }
  assert.ok(
    found.some((w) => w.includes('/runs')),
    'study runs answer progress',
  );
});
