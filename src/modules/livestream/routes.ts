// GET /api/live/events: the organisation's live stream as server-sent events (decision 0231).
import { Type } from 'typebox';
import type { ServerResponse } from 'node:http';
import { BEARER, defineOperation, type Operation } from '../../platform/operation.ts';
import { errors } from '../../platform/errors.ts';
import { answerBasisHeaders } from '../../platform/register.ts';
import { realmForId } from '../orgs/index.ts';
import { SUBSCRIBER_BUFFER, SUBSCRIBER_BUFFER_BYTES, type LiveEvent, type LiveHub } from './hub.ts';
import type { EndReason, StreamRegistry } from './streams.ts';

/** Retry-After of a stream refused at its cap: a place frees when one of the holder's streams closes. */
export const CAP_RETRY_AFTER_SECONDS = 30;

/** A comment line this often keeps proxies from closing an idle stream. */
const HEARTBEAT_MS = 15_000;

const DESCRIPTION = [
  "Server-sent events (`text/event-stream`) of the caller's organisation, as they happen, on whichever instance the client reaches:",
  '',
  '- `ready`: first, `{"organisation_id", "buffer", "data_basis"}` once the stream is subscribed; `data_basis` is `simulated` for a demo organisation (its devices and readings are synthetic), else `stored` (records as written), as the `x-platform-data-basis` header says.',
  '- `telemetry`: each batch ingestion streamed, `{"received_at", "stored", "records": [{"asset_id", "ts", "power_kw", "soc_pct", "voltage", "current", "temp_c", "status"}]}`.',
  '- `alert`: an alert raised, resolved, acknowledged or assigned, `{"transition": "raised"|"resolved"|"acknowledged"|"assigned", "alert": {"id", "type", "source", "severity", "status", "title", "subject", "raised_at", "resolved_at"}}`; an `acknowledged` or `assigned` alert also carries `"acknowledged_at"` and `"assigned_to"`.',
  '- `dropped`: `{"dropped": n}` when the client read too slowly and the oldest n events were dropped (each subscriber holds at most ' +
    SUBSCRIBER_BUFFER +
    ' unread events, and at most ' +
    SUBSCRIBER_BUFFER_BYTES / (1024 * 1024) +
    ' MiB of them).',
  "- `end`: last, `{\"reason\"}`, then the answer ends: `session_revoked` (logged out), `token_expired` (the access token's `exp`), `access_withdrawn` (no longer a member, or the account disabled), `role_changed` (the member's role is no longer the token's), `service_stopping`. Reconnect with a current token.",
  '',
  'A comment line (`: keep-alive`) every 15 s. Authenticate with `Authorization: Bearer` (a browser client reads the stream with `fetch`). Nothing is replayed on reconnect: read the current state from the ordinary operations, then follow the stream. While the stream stays open it carries every stored batch whose publish the bus accepted within 30 s of ingestion, once; a batch refused while the bus fails over (a NATS node lost) arrives seconds late, possibly after newer ones (order by `received_at`).',
  '',
  `Open streams are capped per user and per organisation on each instance (LIVE_STREAMS_PER_USER, LIVE_STREAMS_PER_ORGANISATION); past either, 429 \`Rate limit exceeded\` with \`Retry-After: ${CAP_RETRY_AFTER_SECONDS}\`.`,
].join('\n');

export function liveRoutes(hub: LiveHub, streams: StreamRegistry, onRefused: () => void): Operation[] {
  const op: Operation = defineOperation({
    operationId: 'streamLiveEvents',
    method: 'GET',
    path: '/api/live/events',
    summary: "The organisation's live telemetry and alerts (server-sent events)",
    description: DESCRIPTION,
    tags: ['live'],
    status: 'live',
    access: BEARER.read,
    produces: 'text/event-stream',
    stream: true,
    requestIdHeader: true,
    dataBasis: { basis: 'stored', readings: true },
    schema: { response: { 200: Type.String({ description: 'An event stream (text/event-stream)' }) } },
    handler: async ({ ctx, req, reply }) => {
      const orgId = ctx.orgId!;
      const actor = ctx.actor;
      if (actor.kind !== 'user') throw errors.forbidden('Insufficient permissions', 'insufficient_permissions');
      const sub = sseSubscriber(reply.raw);
      let release: (() => void) | null;
      try {
        release = await streams.admit({
          orgId,
          userId: actor.userId,
          sessionId: actor.tokenId,
          roles: actor.roles,
          expiresAt: actor.expiresAt,
          end: (reason) => sub.finish(reason),
        });
      } catch {
        throw errors.serviceUnavailable('Live stream unavailable', 5, 'live_unavailable');
      }
      if (!release) {
        onRefused();
        throw errors.rateLimited(CAP_RETRY_AFTER_SECONDS);
      }
      let unsubscribe: () => void;
      try {
        unsubscribe = await hub.subscribe(orgId, sub);
      } catch {
        release();
        throw errors.serviceUnavailable('Live stream unavailable', 5, 'live_unavailable');
      }
      reply.hijack();
      // A client gone while the stream was admitted (its 'close' came before any listener) holds no place.
      if (reply.raw.destroyed) {
        unsubscribe();
        release();
        return undefined;
      }
      // The head is written here, so the platform's basis headers are too (simulated for a demo organisation).
      const basis = answerBasisHeaders(op, ctx, { realmOf: realmForId });
      reply.raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
        'x-request-id': String(req.id),
        ...basis,
      });
      const beat = setInterval(() => sub.comment('keep-alive'), HEARTBEAT_MS);
      beat.unref();
      const closed = () => {
        clearInterval(beat);
        unsubscribe();
        release();
      };
      reply.raw.once('close', closed);
      // Last: a session ended meanwhile ends the stream right after its ready event.
      sub.start({ organisation_id: orgId, buffer: SUBSCRIBER_BUFFER, data_basis: basis['x-platform-data-basis'] });
      return undefined;
    },
  });
  return [op];
}

const frame = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * An event's frame, written once however many of the organisation's subscribers take it: the hub
 * hands every subscriber the same event object.
 */
const frames = new WeakMap<LiveEvent, string>();
function frameOf(e: LiveEvent): string {
  let f = frames.get(e);
  if (f === undefined) {
    f = frame(e.event, e.data);
    frames.set(e, f);
  }
  return f;
}

/** One client's stream: events wait in a buffer bounded in events and characters while the socket is backed up. */
function sseSubscriber(res: ServerResponse) {
  let started = false;
  let finished: EndReason | undefined;
  let dropped = 0;
  const queue: string[] = [];
  let queued = 0;
  const take = () => {
    const f = queue.shift()!;
    queued -= f.length;
    return f;
  };
  const flush = () => {
    if (dropped > 0) {
      res.write(frame('dropped', { dropped }));
      dropped = 0;
    }
    while (queue.length && !res.writableNeedDrain) res.write(take());
  };
  res.on('drain', () => started && !finished && flush());
  const close = (reason: EndReason) => {
    if (res.writableEnded || res.destroyed) return;
    res.end(frame('end', { reason }));
  };
  return {
    push(e: LiveEvent) {
      if (finished || res.writableEnded || res.destroyed) return;
      const f = frameOf(e);
      queue.push(f);
      queued += f.length;
      if (started && !res.writableNeedDrain) flush();
      // What stays waits for the socket: the oldest go first past either bound.
      while (queue.length > SUBSCRIBER_BUFFER || queued > SUBSCRIBER_BUFFER_BYTES) {
        take();
        dropped++;
      }
    },
    start(ready: unknown) {
      started = true;
      res.write(frame('ready', ready));
      if (finished) return close(finished);
      flush();
    },
    /** The last event, `end` with the reason, then the answer ends; events still queued are dropped. */
    finish(reason: EndReason) {
      if (finished) return;
      finished = reason;
      queue.length = 0;
      queued = 0;
      if (started) close(reason);
    },
    comment(text: string) {
      if (started && !res.writableEnded && !res.writableNeedDrain) res.write(`: ${text}\n\n`);
    },
    end() {
      if (!finished) this.finish('service_stopping');
      else if (!res.writableEnded) res.end();
    },
  };
}
