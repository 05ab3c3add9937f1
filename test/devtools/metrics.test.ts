// The developer platform's metrics (decision 0019): webhook delivery attempts by outcome, the job
// queue's depth and age per kind, read from the store at each scrape, and how long each run took.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sample, scrape } from '../helpers/metrics.ts';
import type { JobQueue } from '../../src/platform/jobs.ts';
import { bearer, clockOf, deliveries, registerEndpoint, runAt, startReceiver } from './helpers.ts';

let svc: TestService;
before(async () => {
  svc = await startTestService();
  await svc.createOrg('hooks-org');
});
after(() => svc.stop());

const DEPTH = 'eps_job_queue_depth';
const AGE = 'eps_job_queue_oldest_age_seconds';
const DELIVER = 'kind="webhooks.deliver"';
const RUNS = 'eps_job_run_duration_seconds_count';
const runs = async (kind: string, outcome: string) => sample(await scrape(svc), RUNS, `kind="${kind}",outcome="${outcome}"`) ?? 0;
const outcomes = async () => {
  const body = await scrape(svc);
  const of = (o: string) => sample(body, 'eps_webhook_deliveries_total', `outcome="${o}"`) ?? 0;
  return { succeeded: of('succeeded'), retrying: of('retrying'), failed: of('failed'), cancelled: of('cancelled') };
};

test('a delivery waiting past its time shows in queue depth and age; attempts are counted by outcome', async () => {
  const rx = await startReceiver([500, 200]);
  const gone = await startReceiver([410]);
  try {
    const ep = await registerEndpoint(svc, 'hooks-org', `${rx.url}/h`);
    const ep410 = await registerEndpoint(svc, 'hooks-org', `${gone.url}/h`);
    await svc.runDue(); // the scheduled jobs due at start
    const start = await outcomes();
    const runsAtStart = await runs('webhooks.deliver', 'done');
    assert.equal(sample(await scrape(svc), DEPTH, DELIVER), 0, 'the kind is listed before any job of it');
    for (const id of [ep.id, ep410.id]) {
      const res = await svc.request({ method: 'POST', url: `/api/devtools/webhooks/${id}/test`, headers: await bearer(svc, 'hooks-org') });
      assert.equal(res.statusCode, 202, res.body);
    }
    const times = await Promise.all([ep.id, ep410.id].map(async (id) => Date.parse((await deliveries(svc, 'hooks-org', id)).deliveries[0].next_attempt_at)));
    const [first, due] = [Math.min(...times), Math.max(...times)];
    // Time passes with no worker running (an instance stuck or down): the deliveries wait.
    clockOf(svc).set(due + 90_000);
    const waiting = await scrape(svc);
    assert.equal(sample(waiting, DEPTH, DELIVER), 2);
    assert.equal(sample(waiting, AGE, DELIVER), (due + 90_000 - first) / 1000);

    await svc.runDue();
    const drained = await scrape(svc);
    assert.equal(sample(drained, DEPTH, DELIVER), 0);
    assert.equal(sample(drained, AGE, DELIVER), 0);
    assert.deepEqual(await outcomes(), { ...start, retrying: start.retrying + 1, failed: start.failed + 1 }, '500 retried, 410 final');
    assert.equal(await runs('webhooks.deliver', 'done'), runsAtStart + 2, 'each run is timed once');

    const next = Date.parse((await deliveries(svc, 'hooks-org', ep.id)).deliveries[0].next_attempt_at);
    await runAt(svc, next);
    assert.equal((await deliveries(svc, 'hooks-org', ep.id)).deliveries[0].status, 'succeeded');
    assert.deepEqual(await outcomes(), { ...start, succeeded: start.succeeded + 1, retrying: start.retrying + 1, failed: start.failed + 1 });
    assert.equal(await runs('webhooks.deliver', 'done'), runsAtStart + 3);
    assert.equal(await runs('webhooks.deliver', 'failed'), 0);
  } finally {
    await rx.close();
    await gone.close();
  }
});

test('a job whose handler throws is timed as failed; the recurring energy refresh is timed at each run', async () => {
  const refreshes = await runs('energy.refresh', 'done');
  let calls = 0;
  // The instance's queue itself (modules see only enqueue): a kind of this test's own.
  (svc.deps.jobs as JobQueue).register('metrics-test.throws', async () => {
    calls++;
    throw new Error('the handler fails');
  });
  await svc.deps.jobs.enqueue(svc.deps.db, { kind: 'metrics-test.throws', orgId: 'hooks-org', payload: {}, maxAttempts: 1 });
  await svc.runDue();
  assert.equal(calls, 1);
  assert.equal(await runs('metrics-test.throws', 'failed'), 1);
  assert.equal(await runs('metrics-test.throws', 'done'), 0);
  const body = await scrape(svc);
  const sum = sample(body, 'eps_job_run_duration_seconds_sum', 'kind="metrics-test.throws",outcome="failed"');
  assert.ok(sum !== undefined && sum >= 0 && sum < 60, `a duration in seconds, not milliseconds: ${sum}`);

  // The refresh runs on its own grid: moving the service clock past its interval runs it once more.
  clockOf(svc).set(clockOf(svc).now().getTime() + 31_000);
  await svc.runDue();
  assert.equal(await runs('energy.refresh', 'done'), refreshes + 1);
});
