// The developer platform's metrics (decision 0019): webhook delivery attempts by outcome, and the
// job queue's depth and age per kind, read from the store at each scrape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { sample, scrape } from '../helpers/metrics.ts';
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

    const next = Date.parse((await deliveries(svc, 'hooks-org', ep.id)).deliveries[0].next_attempt_at);
    await runAt(svc, next);
    assert.equal((await deliveries(svc, 'hooks-org', ep.id)).deliveries[0].status, 'succeeded');
    assert.deepEqual(await outcomes(), { ...start, succeeded: start.succeeded + 1, retrying: start.retrying + 1, failed: start.failed + 1 });
  } finally {
    await rx.close();
    await gone.close();
  }
});
