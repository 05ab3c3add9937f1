// What a live stream may hold on the service (decisions 0231, 0290, 0511):
// - a client that stops reading has at most SUBSCRIBER_BUFFER_BYTES of events waiting for it in
//   the service, whatever the size of each event (a telemetry `status` has no length limit, so one
//   event may be megabytes): 256 events of that size held for each of an organisation's 100
//   streams would take gigabytes of the instance every organisation shares;
// - a client that goes away before its stream is admitted (its socket closed while the request
//   was authenticated) holds no place: the caps count only streams that are open.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openStream } from '../helpers/sse.ts';
import { sample, scrape } from '../helpers/metrics.ts';
import { bounded } from '../helpers/signal.ts';
import { eventually } from '../helpers/eventually.ts';

const SLOW = 'live-slow';
const GONE = 'live-gone';

let svc: TestService;
let base: string;

before(async () => {
  svc = await startTestService({
    env: {
      LIVE_STREAMS_PER_USER: '2',
      LIVE_STREAMS_PER_ORGANISATION: '1000',
      RATE_LIMIT_AUTH_PER_MIN: '100000',
      RATE_LIMIT_USER_PER_MIN: '100000',
    },
  });
  for (const org of [SLOW, GONE]) await svc.createOrg(org);
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
after(() => svc?.stop());

interface Frame {
  event: string;
  data: string;
}

/** A stream read through a plain socket that the test can stop reading (the kernel buffers fill, then the service's). */
async function pausableStream(token: string) {
  const frames: Frame[] = [];
  let text = '';
  let wake: () => void = () => {};
  let ended = false;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.get(`${base}/api/live/events`, { headers: { authorization: `Bearer ${token}` }, agent: false }, resolve).on('error', reject);
  });
  assert.equal(res.statusCode, 200);
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    let at: number;
    while ((at = text.indexOf('\n\n')) >= 0) {
      const block = text.slice(0, at);
      text = text.slice(at + 2);
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event && data !== undefined) frames.push({ event, data });
    }
    wake();
  });
  res.on('close', () => {
    ended = true;
    wake();
  });
  const until = async (what: string, match: (f: Frame) => boolean) => {
    for (;;) {
      const found = frames.find(match);
      if (found) return found;
      if (ended) throw new Error(`the stream ended without ${what}`);
      await bounded(new Promise<void>((r) => (wake = r)), what);
    }
  };
  await until('ready', (f) => f.event === 'ready');
  return { res, frames, until };
}

test('a client that stops reading has at most SUBSCRIBER_BUFFER_BYTES of large events held for it; it is told how many were dropped', async () => {
  const admin = await svc.token({ orgId: SLOW, roles: ['ORG_ADMIN'] });
  const reader = await svc.token({ orgId: SLOW, roles: ['VIEWER'], userId: 'slow-reader' });
  const s = await pausableStream(reader);
  s.res.pause();
  // 150 events of about 200 KB (30 MB): fewer than the 256 events a subscriber may hold, far more
  // than the loopback socket's buffers take while nobody reads.
  const EVENTS = 150;
  const status = 's'.repeat(200_000);
  const t0 = svc.clock.now().getTime();
  for (let i = 0; i < EVENTS; i++) {
    const res = await svc.request({
      method: 'POST',
      url: '/api/telemetry/ingest',
      headers: { authorization: `Bearer ${admin}` },
      payload: [{ asset_id: 'slow-1', ts: new Date(t0 - (EVENTS - i) * 1000).toISOString(), power_kw: i, status }],
    });
    assert.ok(res.statusCode < 300, res.body);
  }
  const marker = await svc.request({
    method: 'POST',
    url: '/api/telemetry/ingest',
    headers: { authorization: `Bearer ${admin}` },
    payload: [{ asset_id: 'slow-last', ts: new Date(t0).toISOString(), power_kw: 1 }],
  });
  assert.ok(marker.statusCode < 300, marker.body);
  s.res.resume();
  await s.until('the last batch, once the client reads again', (f) => f.event === 'telemetry' && f.data.includes('"slow-last"'));
  const big = s.frames.filter((f) => f.event === 'telemetry' && f.data.includes(status));
  const dropped = s.frames.filter((f) => f.event === 'dropped').reduce((n, f) => n + (JSON.parse(f.data) as { dropped: number }).dropped, 0);
  assert.equal(big.length + dropped, EVENTS, 'every event was either delivered or counted as dropped');
  // What arrived is what the socket's buffers held plus what the service kept: not all 30 MB.
  const delivered = big.reduce((n, f) => n + f.data.length, 0);
  assert.ok(dropped > 0, `events were dropped (${big.length} of ${EVENTS} delivered, ${delivered} bytes)`);
  assert.ok(delivered < (EVENTS * status.length) / 2, `the service held a bounded amount: ${delivered} bytes delivered`);
  s.res.destroy();
});

test('a client that goes away while its stream is being admitted holds no place under the caps', async () => {
  const port = Number(new URL(base).port);
  // Each attempt with a new token (verified afresh, a turn of the event loop): the client's close
  // often reaches the service before the stream is admitted.
  const ATTEMPTS = 40;
  for (let i = 0; i < ATTEMPTS; i++) {
    const token = await svc.token({ orgId: GONE, roles: ['VIEWER'], userId: `gone-${i}` });
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.end(`GET /api/live/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    if (i % 2) await new Promise((r) => setImmediate(r));
    socket.destroy();
  }
  // Every one of those sockets is closed: no stream may stay open for them.
  await eventually(async () => sample(await scrape(svc), 'eps_live_streams_open') === 0, 'streams of clients that went away are not counted open');
  // And a user whose first attempts went away still gets their places.
  const token = await svc.token({ orgId: GONE, roles: ['VIEWER'], userId: 'gone-again' });
  for (let i = 0; i < 3; i++) {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.end(`GET /api/live/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    socket.destroy();
  }
  // Both of the user's places (LIVE_STREAMS_PER_USER) come free once those requests are seen
  // through (a place a gone client held would stay taken until its token expired).
  await eventually(async () => {
    const a = await openStream(base, token);
    const b = await openStream(base, token);
    await a.close();
    await b.close();
    return a.res.status === 200 && b.res.status === 200;
  }, 'both of the user’s places free');
});
