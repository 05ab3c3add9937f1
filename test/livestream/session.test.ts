// The live stream (GET /api/live/events) re-checks the session it was opened with and is capped
// per user and per organisation (issue 35, finding 5; decision 0290):
// - it ends (an `end` event naming the reason, then the answer ends) at logout, at the token's
//   expiry on the service clock, when the member is removed or their role changes;
// - a user's streams past LIVE_STREAMS_PER_USER, and an organisation's past
//   LIVE_STREAMS_PER_ORGANISATION, are refused 429 with Retry-After; another user, or another
//   organisation, is not affected by them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openStream, type OpenStream } from '../helpers/sse.ts';
import type { ManualClock } from '../../src/platform/clock.ts';

// One organisation per test: each holds at most LIVE_STREAMS_PER_ORGANISATION (3) streams.
const ORG = 'live-a';
const EXPIRY = 'live-e';
const MEMBERS = 'live-m';
const CAPPED = 'live-b';
const ELSEWHERE = 'live-c';
const PASSWORD = 'correct-horse-battery-staple';
const CHECK_MS = 30_000;

let svc: TestService;
let base: string;
const open: OpenStream[] = [];

before(async () => {
  svc = await startTestService({
    env: {
      LIVE_STREAMS_PER_USER: '2',
      LIVE_STREAMS_PER_ORGANISATION: '3',
      RATE_LIMIT_AUTH_PER_MIN: '100000',
      RATE_LIMIT_USER_PER_MIN: '100000',
    },
  });
  for (const org of [ORG, EXPIRY, MEMBERS, CAPPED, ELSEWHERE]) await svc.createOrg(org);
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(async () => {
  await Promise.all(open.map((s) => s.close()));
  await svc?.stop();
});

const clock = () => svc.clock as ManualClock;

async function stream(token: string, expect = 200) {
  const s = await openStream(base, token);
  open.push(s);
  assert.equal(s.res.status, expect);
  return s;
}

async function signIn(org: string, email: string, role: 'VIEWER' | 'ORG_ADMIN' = 'VIEWER') {
  const { id } = await svc.createUser(org, email, role, PASSWORD);
  const res = await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email, password: PASSWORD } });
  assert.equal(res.statusCode, 200, res.body);
  return { id, ...(res.json() as { access_token: string; refresh_token: string }) };
}

/** Moves the service clock past one session check and runs what is due (the check among it). */
async function nextCheck() {
  clock().advance(CHECK_MS + 1);
  await svc.runDue();
}

async function endsWith(s: OpenStream, reason: string) {
  const end = await s.next(`the end (${reason})`, (e) => e.event === 'end');
  assert.deepEqual(end.data, { reason });
  await s.ended(`the answer ending after the end event (${reason})`);
  assert.equal(s.events.at(-1)?.event, 'end', 'nothing follows the end event');
}

test('a stream ends when its session logs out, and its places are free again', async () => {
  const tokens = await signIn(ORG, 'logout@live.test');
  const s = await stream(tokens.access_token);
  const second = await stream(tokens.access_token);
  const res = await svc.request({
    method: 'POST',
    url: '/api/auth/logout',
    headers: { authorization: `Bearer ${tokens.access_token}` },
    payload: { refresh_token: tokens.refresh_token },
  });
  assert.equal(res.statusCode, 200, res.body);
  // No clock moved, no check run: the revocation reaches the stream by itself.
  await endsWith(s, 'session_revoked');
  await endsWith(second, 'session_revoked');
  // The user's two places (LIVE_STREAMS_PER_USER) were given back when the streams ended.
  const again = await svc.request({ method: 'POST', url: '/api/auth/login', payload: { email: 'logout@live.test', password: PASSWORD } });
  assert.equal(again.statusCode, 200, again.body);
  await stream(again.json().access_token);
  await stream(again.json().access_token);
});

test('a stream ends at its token’s expiry on the service clock', async () => {
  const exp = Math.floor(clock().now().getTime() / 1000) + 20;
  const token = await svc.token({ orgId: EXPIRY, roles: ['VIEWER'], expiresIn: exp as unknown as string });
  const s = await stream(token);
  await nextCheck();
  await endsWith(s, 'token_expired');
});

test('a stream ends when its member is removed from the organisation, or their role changes', async () => {
  const removed = await signIn(MEMBERS, 'removed@live.test');
  const demoted = await signIn(MEMBERS, 'demoted@live.test', 'ORG_ADMIN');
  const kept = await signIn(MEMBERS, 'kept@live.test');
  const gone = await stream(removed.access_token);
  const changed = await stream(demoted.access_token);
  const stays = await stream(kept.access_token);
  // No operation removes a member: an operator does it in the store.
  await svc.deps.db.query('delete from memberships where org_id = $1 and user_id = $2', [MEMBERS, removed.id]);
  await svc.createUser(MEMBERS, 'demoted@live.test', 'VIEWER', PASSWORD);
  await nextCheck();
  await endsWith(gone, 'access_withdrawn');
  await endsWith(changed, 'role_changed');
  // The member whose access did not change keeps the stream: it still delivers.
  const admin = await svc.token({ orgId: MEMBERS, roles: ['ORG_ADMIN'] });
  const ts = clock().now().toISOString();
  const ingest = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: { authorization: `Bearer ${admin}` },
    payload: [{ asset_id: 'live-1', ts, power_kw: 2.5 }],
  });
  assert.ok(ingest.statusCode < 300, ingest.body);
  await stays.next('telemetry on the unchanged member’s stream', (e) => e.event === 'telemetry' && e.data.records[0].ts === ts);
  assert.equal(
    stays.events.some((e) => e.event === 'end'),
    false,
  );
});

test('streams past the per-user cap are refused 429; another user of the organisation is not, until the organisation’s cap', async () => {
  const one = await svc.token({ orgId: CAPPED, roles: ['VIEWER'], userId: 'cap-one' });
  const two = await svc.token({ orgId: CAPPED, roles: ['VIEWER'], userId: 'cap-two' });
  const three = await svc.token({ orgId: CAPPED, roles: ['VIEWER'], userId: 'cap-three' });
  const outside = await svc.token({ orgId: ELSEWHERE, roles: ['VIEWER'], userId: 'cap-outside' });
  await stream(one);
  await stream(one);
  const refused = await stream(one, 429);
  assert.deepEqual(await refused.res.json(), { detail: 'Rate limit exceeded' });
  assert.ok(Number(refused.res.headers.get('retry-after')) >= 1, 'Retry-After is set');

  // The same organisation's other user still gets one: the organisation holds 3 now.
  await stream(two);
  const orgFull = await stream(three, 429);
  assert.deepEqual(await orgFull.res.json(), { detail: 'Rate limit exceeded' });
  // Another organisation is not affected by this one's streams.
  await stream(outside);
});
