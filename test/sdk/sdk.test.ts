// The SDK (packages/sdk) against a listening service on a real store: password sign-in with
// refresh rotation on an expired access token, API keys, paging as an async iterator over more rows
// than a page, retries that honour Retry-After (and never resend a write without Idempotency-Key),
// typed errors, ingestion in batches with per-record outcomes, and the webhook verifier export.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { ALERT_STREAM } from '../../src/modules/alerts/index.ts';
import type { ManualClock } from '../../src/platform/clock.ts';
import { issueKey, READ } from '../devtools/helpers.ts';
import { createPlatform, ApiError, verifyWebhook, type Session } from '../../packages/sdk/src/index.ts';
import { verifyWebhook as verifyDirect } from '../../packages/sdk/src/verify-webhook.ts';

const ORG = 'sdk-org';
const PASSWORD = 'correct-horse-battery-staple';
let svc: TestService;
let baseUrl: string;
const clock = () => svc.clock as ManualClock;

/** Waits move the service clock (never real time); each wait is recorded. */
function clockSleep(waits: number[]) {
  return async (ms: number) => {
    waits.push(ms);
    clock().advance(ms);
  };
}

/** A fetch that records each request's method, path and answer status. */
function recordingFetch(log: { method: string; path: string; status: number }[]) {
  return async (req: Request) => {
    const res = await fetch(req);
    log.push({ method: req.method, path: new URL(req.url).pathname + new URL(req.url).search, status: res.status });
    return res;
  };
}

before(async () => {
  // A small partner limit so a key reaches 429 in a few calls.
  svc = await startTestService({ env: { RATE_LIMIT_PARTNER_PER_MIN: '4' } });
  await svc.createOrg(ORG);
  await svc.createUser(ORG, 'admin@sdk.test', 'ORG_ADMIN', PASSWORD);
  baseUrl = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => svc.stop());

test('password sign-in; an expired access token is refreshed transparently (rotation), the old refresh token no longer works', async () => {
  const sessions: (Session | null)[] = [];
  const log: { method: string; path: string; status: number }[] = [];
  const sdk = createPlatform({
    baseUrl,
    credentials: { email: 'admin@sdk.test', password: PASSWORD },
    onSession: (s) => {
      sessions.push(s);
    },
    fetch: recordingFetch(log),
  });
  const first = await sdk.keys.list();
  assert.deepEqual(first.api_keys, []);
  assert.equal(sessions.length, 1, 'signed in on the first call');
  const s1 = sessions[0]!;
  assert.equal(s1.organisationId, ORG);

  // An hour and a minute later the access token has expired on the service's clock.
  clock().advance(61 * 60_000);
  const created = await sdk.keys.create({ name: 'from the sdk', scopes: ['alerts:read'] });
  assert.match(created.secret, /^plat_live_/);
  assert.equal(sessions.length, 2, 'one rotation');
  const s2 = sessions[1]!;
  assert.notEqual(s2.refreshToken, s1.refreshToken);
  assert.deepEqual(
    log.map((l) => `${l.method} ${l.path} ${l.status}`),
    [
      'POST /api/auth/login 200',
      'GET /api/devtools/apikeys 200',
      'POST /api/devtools/apikeys 401',
      'POST /api/auth/token/refresh 200',
      'POST /api/devtools/apikeys 201',
    ],
  );
  assert.deepEqual(
    (await sdk.keys.list()).api_keys.map((k) => k.name),
    ['from the sdk'],
  );

  // A kept session works without the password (the CLI's case).
  const resumed = createPlatform({ baseUrl, credentials: { session: s2 } });
  assert.equal((await resumed.keys.list()).api_keys.length, 1);

  // The refresh token presented at the rotation is spent: presenting it again is refused, and the
  // service ends the whole family (someone holds a copy), so the kept session stops working too.
  const stale = createPlatform({ baseUrl, credentials: { session: { accessToken: 'expired', refreshToken: s1.refreshToken } } });
  const err = await stale.keys.list().then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError, String(err));
  assert.equal(err.status, 401);
  assert.equal(err.detail, 'Invalid or expired refresh token');
  const ended = await resumed.keys.list().then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(ended instanceof ApiError);
  assert.equal(ended.status, 401);

  // Sign-out revokes the refresh token and forgets the session.
  const other = createPlatform({ baseUrl, credentials: { email: 'admin@sdk.test', password: PASSWORD } });
  const s3 = await other.signIn();
  await other.signOut();
  assert.equal(other.session, undefined);
  const afterSignOut = createPlatform({ baseUrl, credentials: { session: { accessToken: 'expired', refreshToken: s3.refreshToken } } });
  assert.equal(
    (
      (await afterSignOut.keys.list().then(
        () => null,
        (e: unknown) => e,
      )) as ApiError
    ).status,
    401,
  );
});

test('paging: for await over partner alerts reads every row once across pages, newest first, one request per page', async () => {
  const stream = svc.deps.services.get(ALERT_STREAM);
  for (let i = 0; i < 12; i++) {
    if (i % 4 === 0) clock().advance(1000);
    await svc.deps.db.tx((q) => stream.raise(q, ORG, { type: 'test_alert', source: 'test', severity: 'info', title: `#${i}`, dedupeKey: `sdk${i}` }));
  }
  const key = await issueKey(svc, ORG, { scopes: READ });
  const log: { method: string; path: string; status: number }[] = [];
  const sdk = createPlatform({ baseUrl, credentials: { apiKey: key.secret }, fetch: recordingFetch(log) });
  const titles: string[] = [];
  const times: number[] = [];
  for await (const alert of sdk.partner.alerts({ limit: 5 })) {
    titles.push(alert.title);
    times.push(Date.parse(alert.raised_at));
  }
  assert.equal(titles.length, 12);
  assert.deepEqual([...titles].sort(), Array.from({ length: 12 }, (_, i) => `#${i}`).sort());
  assert.ok(
    times.every((t, i) => i === 0 || t <= times[i - 1]),
    'newest first',
  );
  assert.equal(log.length, 3, 'three pages of at most five');
  assert.ok(log[1].path.includes('cursor='));

  // Breaking out of the loop sends no further request.
  log.length = 0;
  for await (const _ of sdk.partner.alerts({ limit: 5 })) break;
  assert.equal(log.length, 1);
});

test('429: an idempotent call waits Retry-After on the service clock and succeeds; a write without Idempotency-Key is not resent, with one it is', async () => {
  const key = await issueKey(svc, ORG, { scopes: READ });
  const waits: number[] = [];
  const log: { method: string; path: string; status: number }[] = [];
  const sdk = createPlatform({ baseUrl, credentials: { apiKey: key.secret }, sleep: clockSleep(waits), fetch: recordingFetch(log), random: () => 0.5 });
  for (let i = 0; i < 4; i++) await sdk.partner.me();
  assert.deepEqual(waits, []);
  const me = await sdk.partner.me();
  assert.equal(me.organisation.id, ORG);
  assert.deepEqual(
    log.slice(-2).map((l) => l.status),
    [429, 200],
  );
  assert.equal(waits.length, 1, 'one wait, then success');
  // Never sooner than asked: Retry-After seconds, plus jitter of at most a tenth (random() = 0.5: 5 %).
  const retryAfter = Math.round(waits[0] / 1.05 / 1000);
  assert.ok(retryAfter >= 1 && retryAfter <= 60, `waited ${waits[0]} ms`);
  assert.equal(waits[0], retryAfter * 1000 * 1.05);

  // Spend the new window, then a POST without Idempotency-Key: refused at once, no wait.
  for (let i = 0; i < 3; i++) await sdk.partner.me();
  waits.length = 0;
  const err = await sdk.api.POST('/api/devtools/partner/v1/sandbox/webhooks/test', { body: {} }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ApiError);
  assert.equal(err.status, 429);
  assert.ok(err.retryAfterSeconds! >= 1);
  assert.equal(typeof err.detail, 'string');
  assert.ok(err.requestId);
  assert.deepEqual(waits, [], 'a write without Idempotency-Key is never resent');
  assert.equal(log.filter((l) => l.method === 'POST').length, 1, 'sent once');

  // The same write with Idempotency-Key is resent after Retry-After and reaches the operation.
  const sent = await sdk.api.POST('/api/devtools/partner/v1/sandbox/webhooks/test', { body: {}, headers: { 'idempotency-key': 'sdk-retry-1' } });
  assert.equal(waits.length, 1, 'waited once');
  assert.ok(waits[0] >= err.retryAfterSeconds! * 1000);
  assert.deepEqual(
    log.filter((l) => l.method === 'POST').map((l) => l.status),
    [429, 429, 202],
  );
  assert.equal(sent.response.status, 202);
  assert.equal(sent.data!.event_type, 'webhook.test');
  assert.equal(sent.data!.queued, 0, 'no sandbox endpoint registered');
});

test('typed errors carry status, detail (sentence or field list), code and the request id', async () => {
  const key = await issueKey(svc, ORG, { scopes: ['devices:read'] });
  const sdk = createPlatform({ baseUrl, credentials: { apiKey: key.secret } });
  const scope = await (async () => {
    for await (const _ of sdk.partner.alerts()) break;
  })().then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(scope instanceof ApiError);
  assert.equal(scope.status, 403);
  assert.equal(scope.code, 'insufficient_scope');
  assert.match(scope.requestId ?? '', /^[0-9a-f-]{36}$/, 'the id this client sent, echoed');
  assert.equal((scope.body as any).error.request_id, scope.requestId);

  const admin = createPlatform({ baseUrl, credentials: { email: 'admin@sdk.test', password: PASSWORD } });
  const invalid = await admin.keys.create({ name: '', scopes: ['no:such'] } as any).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(invalid instanceof ApiError);
  assert.equal(invalid.status, 422);
  assert.ok(invalid.fieldErrors.length > 0 || typeof invalid.detail === 'string');
  assert.ok(invalid.requestId);

  const missing = await admin.webhooks.remove('00000000-0000-4000-8000-000000000000').then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(missing instanceof ApiError);
  assert.equal(missing.status, 404);
  assert.equal(typeof missing.detail, 'string');

  const wrongPassword = await createPlatform({ baseUrl, credentials: { email: 'admin@sdk.test', password: 'not-it-at-all' } })
    .signIn()
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(wrongPassword instanceof ApiError);
  assert.equal(wrongPassword.status, 401);
});

test("ingestion: a large array in batches of a chosen size, every record's outcome by its index in the input, rejections by reason; an all-rejected batch is an outcome, not a throw", async () => {
  const sdk = createPlatform({ baseUrl, credentials: { email: 'admin@sdk.test', password: PASSWORD } });
  const t0 = Date.parse('2026-10-15T00:00:00Z');
  const records = Array.from({ length: 1250 }, (_, i) => ({ asset_id: `sdk-bat-${i % 5}`, ts: new Date(t0 + i * 60_000).toISOString(), power_kw: i % 7 }));
  records[3] = { asset_id: 'sdk-bat-0', ts: 'yesterday', power_kw: 1 };
  records[700] = { ts: new Date(t0).toISOString(), power_kw: 1 } as any;
  records[1201] = { ...records[1200] };
  const report = await sdk.telemetry.ingest(records, { batchSize: 400 });
  assert.equal(report.batches, 4);
  assert.equal(report.count, 1250);
  assert.equal(report.results.length, 1250);
  assert.deepEqual(
    report.results.map((r) => r.index),
    records.map((_, i) => i),
  );
  assert.equal(report.results[3].status, 'rejected');
  assert.equal(report.results[3].reason, 'unparseable_ts');
  assert.equal(report.results[700].reason, 'missing_asset_id');
  assert.equal(report.results[1201].status, 'duplicate');
  assert.equal(report.results[1201].duplicate_of, 1200);
  assert.deepEqual(report.rejectionsByReason, { unparseable_ts: 1, missing_asset_id: 1 });
  assert.equal(report.stored, 1247);
  assert.equal(report.rejected + report.duplicates + report.stored, 1250);
  // What the service holds agrees.
  // What the service holds agrees: sdk-bat-1 had every fifth record from index 1, less 1201 (a copy of 1200).
  const events = await sdk.telemetry.liveEvents({ asset_id: 'sdk-bat-1', limit: 500 });
  assert.equal(events.length, 249);

  const outcomes = [];
  for await (const b of sdk.telemetry.ingestBatches([{ asset_id: 'x' }, { asset_id: 'y' }, { asset_id: 'z', ts: new Date(t0).toISOString() }], {
    batchSize: 2,
  }))
    outcomes.push(b);
  assert.deepEqual(
    outcomes.map((o) => [o.offset, o.size, o.stored, o.rejected]),
    [
      [0, 2, 0, 2],
      [2, 1, 1, 0],
    ],
  );
  assert.deepEqual(
    outcomes[0].results.map((r) => [r.index, r.status, r.reason]),
    [
      [0, 'rejected', 'missing_ts'],
      [1, 'rejected', 'missing_ts'],
    ],
  );

  // Through the generated client a request whose every record is rejected is an ApiError carrying the per-record results.
  const allRejected = await sdk.api.POST('/api/telemetry/ingest', { body: [{ asset_id: 'x' }, { ts: 'soon' }] as never }).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(allRejected instanceof ApiError);
  assert.equal(allRejected.status, 422);
  assert.equal(allRejected.detail, 'all_records_rejected');
  assert.deepEqual(
    allRejected.results!.map((r) => [r.index, r.status, r.reason]),
    [
      [0, 'rejected', 'missing_ts'],
      [1, 'rejected', 'missing_asset_id'],
    ],
  );
  assert.ok(allRejected.requestId);

  // A refusal of the whole request is a typed error; a viewer may not ingest.
  await svc.createUser(ORG, 'viewer@sdk.test', 'VIEWER', PASSWORD);
  const viewer = createPlatform({ baseUrl, credentials: { email: 'viewer@sdk.test', password: PASSWORD } });
  const refused = await viewer.telemetry.ingest(records.slice(0, 3)).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(refused instanceof ApiError);
  assert.equal(refused.status, 403);
  assert.equal(refused.detail, 'Insufficient permissions');
});

test('the webhook verifier is exported from the SDK entry point', () => {
  assert.equal(verifyWebhook, verifyDirect);
});

test("the live stream as an async iterator: ready, then the organisation's telemetry as it is ingested; without credentials an ApiError 401", async () => {
  const sdk = createPlatform({ baseUrl, credentials: { email: 'admin@sdk.test', password: PASSWORD } });
  const stop = new AbortController();
  const events = sdk.telemetry.stream({ signal: stop.signal })[Symbol.asyncIterator]();
  const ready = await events.next();
  assert.equal(ready.done, false);
  assert.equal(ready.value!.event, 'ready');
  assert.deepEqual(ready.value!.data, { organisation_id: ORG, buffer: 256, data_basis: 'stored' });
  const ts = new Date(clock().now().getTime() - 60_000).toISOString();
  await sdk.telemetry.ingestBatch([{ asset_id: 'stream-1', ts, soc_pct: 42 }]);
  const next = await events.next();
  assert.equal(next.value!.event, 'telemetry');
  const data = next.value!.data as { stored: boolean; records: { asset_id: string; ts: string; soc_pct: number }[] };
  assert.equal(data.stored, true);
  assert.deepEqual(
    data.records.map((r) => [r.asset_id, r.ts, r.soc_pct]),
    [['stream-1', ts, 42]],
  );
  stop.abort();
  assert.equal((await events.next()).done, true, 'aborting ends the iteration');

  // Without credentials the stream is refused like any operation (no retry: a 401 is final).
  const anonymous = createPlatform({ baseUrl, retry: { retries: 0 } });
  const refused = await anonymous.telemetry
    .stream()
    [Symbol.asyncIterator]()
    .next()
    .then(
      () => null,
      (e: unknown) => e,
    );
  assert.ok(refused instanceof ApiError);
  assert.equal(refused.status, 401, String(refused.detail));
  assert.equal(refused.detail, 'Authorization header missing');
});
