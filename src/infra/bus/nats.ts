import { connect, DeliverPolicy, Events, JSONCodec, RetentionPolicy, DiscardPolicy, nanos } from 'nats';
import type { NatsConnection, JetStreamClient } from 'nats';
import type { Bus } from './index.ts';
import { BusUnavailableError, payloadBytes } from './index.ts';
import { withTimeout } from '../../core/timeout.ts';

export interface NatsBusOptions {
  url: string;
  /** Subject prefix and stream name; deployments sharing a server use different ones. */
  namespace: string;
  /** Remove the stream on close (tests). */
  deleteStreamOnClose?: boolean;
  publishTimeoutMs?: number;
  /** Told when the connection is lost (false) or back (true); a seam for fault tests. */
  onConnectionChange?: (connected: boolean) => void;
}

const codec = JSONCodec();

/**
 * NATS JetStream. Connects in the background and keeps reconnecting, so the service starts (and
 * reports `bus: false`) while NATS is down, and recovers without a restart when it returns.
 */
export async function openNatsBus(opts: NatsBusOptions): Promise<Bus> {
  const stream = `${opts.namespace}_BUS`;
  const prefix = `${opts.namespace}.`;
  let nc: NatsConnection | undefined;
  let js: JetStreamClient | undefined;
  let closed = false;
  let connected = false;
  let connecting: Promise<void> | undefined;

  const servers = opts.url.replace(/^nats:\/\//, '');
  const ensureStream = async (conn: NatsConnection) => {
    const jsm = await conn.jetstreamManager({ timeout: 2000 });
    const cfg = {
      name: stream,
      subjects: [`${prefix}>`],
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(60 * 60 * 1000), // the live stream is a recency window: one hour
      max_bytes: 512 * 1024 * 1024,
    };
    try {
      await jsm.streams.info(stream);
    } catch {
      await jsm.streams.add(cfg);
    }
  };
  const tryConnect = async () => {
    if (closed || nc) return;
    try {
      const conn = await connect({
        servers,
        reconnect: true,
        maxReconnectAttempts: -1,
        reconnectTimeWait: 500,
        timeout: 2000,
        pingInterval: 5000,
        maxPingOut: 2,
      });
      await ensureStream(conn);
      nc = conn;
      connected = true;
      js = conn.jetstream({ timeout: opts.publishTimeoutMs ?? 2000 });
      // While the client is reconnecting, publishing fails at once instead of waiting out the
      // publish timeout on every call (found by the T-9 run: each batch waited 2 s).
      (async () => {
        for await (const s of conn.status()) {
          if (s.type === Events.Disconnect) connected = false;
          else if (s.type === Events.Reconnect) connected = true;
          else continue;
          opts.onConnectionChange?.(connected);
        }
      })().catch(() => {});
      conn.closed().then(() => {
        connected = false;
        nc = undefined;
        js = undefined;
      });
    } catch {
      /* retried by the timer */
    }
  };
  const retry = setInterval(() => {
    if (!nc && !connecting) connecting = tryConnect().finally(() => (connecting = undefined));
  }, 1000);
  retry.unref();
  connecting = tryConnect().finally(() => (connecting = undefined));
  await connecting;

  const ready = () => connected && !!nc && !nc.isClosed() && !!js;

  return {
    kind: 'nats',
    async publish(subject, payload) {
      if (!ready()) throw new BusUnavailableError('bus not connected');
      try {
        await js!.publish(prefix + subject, payloadBytes(payload));
      } catch (e) {
        throw new BusUnavailableError(`bus publish failed: ${(e as Error).message}`);
      }
    },
    async subscribe(subject, handler) {
      if (!ready()) throw new BusUnavailableError('bus not connected');
      const consumer = await js!.consumers.get(stream, {
        filterSubjects: prefix + subject,
        deliver_policy: DeliverPolicy.New,
      });
      const messages = await consumer.consume();
      (async () => {
        for await (const m of messages) {
          try {
            await handler(codec.decode(m.data), m.subject.slice(prefix.length));
          } catch {
            /* a subscriber's failure does not stop the stream */
          }
        }
      })().catch(() => {});
      return async () => {
        await messages.close().catch(() => {});
      };
    },
    async ping(timeoutMs = 1000) {
      if (!ready()) return false;
      return withTimeout(
        nc!.flush().then(() => true),
        timeoutMs,
        false,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(retry);
      await connecting?.catch(() => {});
      if (nc) {
        if (opts.deleteStreamOnClose) {
          try {
            const jsm = await nc.jetstreamManager({ timeout: 1000 });
            await jsm.streams.delete(stream);
          } catch {
            /* best effort */
          }
        }
        await nc.drain().catch(() => nc?.close());
      }
    },
  };
}
