// GET /api/live/events: the organisation's live stream as server-sent events (decision 0231).
import { Type } from 'typebox';
import type { ServerResponse } from 'node:http';
import { defineOperation, type Operation } from '../../platform/operation.ts';
import { CAN_READ } from '../../platform/roles.ts';
import { errors } from '../../platform/errors.ts';
import { answerBasisHeaders } from '../../platform/register.ts';
import { realmForId } from '../orgs/index.ts';
import { SUBSCRIBER_BUFFER, type LiveEvent, type LiveHub } from './hub.ts';

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

const DESCRIPTION = [
  "Server-sent events (`text/event-stream`) of the caller's organisation, as they happen, on whichever instance the client reaches:",
  '',
  '- `ready`: first, `{"organisation_id", "buffer", "data_basis"}` once the stream is subscribed; `data_basis` is `simulated` for a demo organisation (its devices and readings are synthetic), else `stored` (records as written), as the `x-platform-data-basis` header says.',
  '- `telemetry`: each batch ingestion streamed, `{"received_at", "stored", "records": [{"asset_id", "ts", "power_kw", "soc_pct", "voltage", "current", "temp_c", "status"}]}`.',
  '- `alert`: an alert raised or resolved, `{"transition": "raised"|"resolved", "alert": {"id", "type", "source", "severity", "status", "title", "subject", "raised_at", "resolved_at"}}`.',
  '- `dropped`: `{"dropped": n}` when the client read too slowly and the oldest n events were dropped (each subscriber holds at most ' + SUBSCRIBER_BUFFER + ' unread events).',
  '',
  'A comment line (`: keep-alive`) every 15 s. Authenticate with `Authorization: Bearer` (a browser client reads the stream with `fetch`). Nothing is replayed on reconnect: read the current state from the ordinary operations, then follow the stream.',
].join('\n');

export function liveRoutes(hub: LiveHub): Operation[] {
  const op: Operation = defineOperation({
    operationId: 'streamLiveEvents',
    method: 'GET',
    path: '/api/live/events',
    summary: "The organisation's live telemetry and alerts (server-sent events)",
    description: DESCRIPTION,
    tags: ['live'],
    status: 'live',
    access: { kind: 'bearer', roles: CAN_READ },
    produces: 'text/event-stream',
    stream: true,
    requestIdHeader: true,
    dataBasis: { basis: 'stored', readings: true },
    schema: { response: { 200: Type.String({ description: 'An event stream (text/event-stream)' }) } },
    handler: async ({ ctx, req, reply }) => {
      const orgId = ctx.orgId!;
      const sub = sseSubscriber(reply.raw);
      let unsubscribe: () => void;
      try {
        unsubscribe = await hub.subscribe(orgId, sub);
      } catch {
        throw errors.serviceUnavailable('Live stream unavailable', 5, 'live_unavailable');
      }
      reply.hijack();
      // The head is written here, so the platform's basis headers are too (simulated for a demo organisation).
      const basis = answerBasisHeaders(op, ctx, { realmOf: realmForId });
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-request-id': String(req.id),
        ...basis,
      });
      sub.start({ organisation_id: orgId, buffer: SUBSCRIBER_BUFFER, data_basis: basis['x-platform-data-basis'] });
      const beat = setInterval(() => sub.comment('keep-alive'), HEARTBEAT_MS);
      beat.unref();
      reply.raw.once('close', () => {
        clearInterval(beat);
        unsubscribe();
      });
      return undefined;
    },
  });
  return [op];
}

/** One client's stream: events wait in a bounded buffer while the socket is backed up. */
function sseSubscriber(res: ServerResponse) {
  let started = false;
  let dropped = 0;
  const queue: string[] = [];
  const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
  const flush = () => {
    if (dropped > 0) {
      res.write(frame('dropped', { dropped }));
      dropped = 0;
    }
    while (queue.length && !res.writableNeedDrain) res.write(queue.shift()!);
  };
  res.on('drain', () => started && flush());
  return {
    push(e: LiveEvent) {
      if (res.writableEnded || res.destroyed) return;
      queue.push(frame(e.event, e.data));
      if (queue.length > SUBSCRIBER_BUFFER) {
        queue.shift();
        dropped++;
      }
      if (started && !res.writableNeedDrain) flush();
    },
    start(ready: unknown) {
      started = true;
      res.write(frame('ready', ready));
      flush();
    },
    comment(text: string) {
      if (started && !res.writableEnded && !res.writableNeedDrain) res.write(`: ${text}\n\n`);
    },
    end() {
      if (!res.writableEnded) res.end();
    },
  };
}
