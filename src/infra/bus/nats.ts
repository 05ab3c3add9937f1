import { connect, ConsumerEvents, DeliverPolicy, Events, JSONCodec, RetentionPolicy, DiscardPolicy, nanos } from 'nats';
import type { ConsumerMessages, NatsConnection, JetStreamClient } from 'nats';
import { randomUUID } from 'node:crypto';
import type { Bus, RetryingPublish } from './index.ts';
import { BusUnavailableError, payloadBytes } from './index.ts';
import { withTimeout } from '../../core/timeout.ts';

export interface NatsBusOptions {
  /** One server's URL, or a comma-separated list of a cluster's servers (the client moves between them). */
  url: string;
  /** Replicas of the stream: 3 on a three-node cluster, so losing one node loses nothing (issue 43). */
  replicas?: number;
  /** Subject prefix and stream name; deployments sharing a server use different ones. */
  namespace: string;
  /** Remove the stream on close (tests). */
  deleteStreamOnClose?: boolean;
  publishTimeoutMs?: number;
  /**
   * Bytes of messages `publishRetrying` may hold for another try at once (64 MiB): past it a
   * refused message is dropped at once instead of held, so an outage under heavy ingestion cannot
   * grow the process without bound.
   */
  retryBudgetBytes?: number;
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
  // Messages held for another try wait for the connection on one shared signal, not a timer each.
  let wakeReady: () => void = () => {};
  let whenReady = new Promise<void>((r) => (wakeReady = r));
  const signalReady = () => {
    wakeReady();
    whenReady = new Promise<void>((r) => (wakeReady = r));
  };
  const retryBudget = opts.retryBudgetBytes ?? 64 * 1024 * 1024;
  let retryingBytes = 0;
  const publishTimeoutMs = opts.publishTimeoutMs ?? 2000;

  const servers = opts.url
    .split(',')
    .map((u) => u.trim().replace(/^nats:\/\//, ''))
    .filter(Boolean);
  const replicas = opts.replicas ?? 1;
  const ensureStream = async (conn: NatsConnection) => {
    const jsm = await conn.jetstreamManager({ timeout: 2000 });
    const cfg = {
      name: stream,
      subjects: [`${prefix}>`],
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: nanos(60 * 60 * 1000), // the live stream is a recency window: one hour
      max_bytes: 512 * 1024 * 1024,
      num_replicas: replicas,
    };
    let info;
    try {
      info = await jsm.streams.info(stream);
    } catch {
      await jsm.streams.add(cfg);
      return;
    }
    // A stream made before the cluster grew (or with another setting) is brought to the replicas asked.
    if (info.config.num_replicas !== replicas) await jsm.streams.update(stream, { ...info.config, num_replicas: replicas });
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
      js = conn.jetstream({ timeout: publishTimeoutMs });
      signalReady();
      // While the client is reconnecting, publishing fails at once instead of waiting out the
      // publish timeout on every call (found by the T-9 run: each batch waited 2 s).
      (async () => {
        for await (const s of conn.status()) {
          if (s.type === Events.Disconnect) connected = false;
          else if (s.type === Events.Reconnect) {
            connected = true;
            signalReady();
          } else continue;
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
  const sleep = (ms: number) =>
    new Promise<void>((r) => {
      const t = setTimeout(r, ms);
      t.unref();
    });

  /**
   * Tries `data` until the bus accepts it or `deadline` passes: at once, then, while connected,
   * after 250 ms, 500 ms and every second (a stream's leader being elected answers "no responders"
   * at once); while disconnected, as soon as the client is back. Every try carries `msgID`, so a try
   * whose acknowledgement was lost and a later one are stored once (the stream's duplicate window,
   * two minutes by default, is longer than any bound given here).
   */
  async function tryUntil(subject: string, data: Uint8Array, msgID: string, deadline: number, first: Promise<boolean>): Promise<boolean> {
    if (await first) return true;
    if (retryingBytes + data.length > retryBudget) return false;
    retryingBytes += data.length;
    try {
      for (let pause = 250; ; pause = Math.min(pause * 2, 1000)) {
        const left = deadline - Date.now();
        if (closed || left <= 0) return false;
        if (ready()) await sleep(Math.min(pause, left));
        else await Promise.race([whenReady, sleep(left)]);
        if (closed || Date.now() >= deadline || !ready()) continue;
        const ok = await js!.publish(prefix + subject, data, { msgID, timeout: Math.max(250, Math.min(publishTimeoutMs, deadline - Date.now())) }).then(
          () => true,
          () => false,
        );
        if (ok) return true;
      }
    } finally {
      retryingBytes -= data.length;
    }
  }

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
    async publishRetrying(subject, payload, { waitMs, retryForMs }): Promise<RetryingPublish> {
      const data = payloadBytes(payload);
      const msgID = randomUUID();
      const started = Date.now();
      // The first try as `publish` makes it: while disconnected nothing is sent and the caller is
      // answered at once (found by the T-9 run), the message waiting for the client to be back.
      const first = ready()
        ? js!.publish(prefix + subject, data, { msgID, timeout: publishTimeoutMs }).then(
            () => true,
            () => false,
          )
        : Promise.resolve(false);
      const settled = tryUntil(subject, data, msgID, started + retryForMs, first);
      if (!ready()) return { accepted: false, settled };
      const accepted = await withTimeout(settled, Math.max(0, waitMs), false);
      return { accepted, settled };
    },
    async subscribe(subject, handler) {
      if (!ready()) throw new BusUnavailableError('bus not connected');
      // The stream sequence of the last message handed over: a consumer made again resumes after it.
      let lastSeq = 0;
      // Before any message arrived, a consumer made again starts from when this one was asked for
      // (not "new" again, which would skip what was published in between).
      const since = new Date().toISOString();
      let stopped = false;
      let current: ConsumerMessages | undefined;
      const open = async () => {
        const consumer = await js!.consumers.get(
          stream,
          lastSeq
            ? { filterSubjects: prefix + subject, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: lastSeq + 1 }
            : current
              ? { filterSubjects: prefix + subject, deliver_policy: DeliverPolicy.StartTime, opt_start_time: since }
              : { filterSubjects: prefix + subject, deliver_policy: DeliverPolicy.New },
        );
        // Pull requests that expire every 5 s (heartbeats every 2.5 s), so a consumer lost with its
        // node is noticed within seconds.
        const messages = await consumer.consume({ expires: 5000 });
        current = messages;
        (async () => {
          for await (const m of messages) {
            // A consumer being replaced can still hand over what the new one hands over again:
            // each stream message reaches the handler once, in stream order.
            if (m.seq <= lastSeq) continue;
            lastSeq = m.seq;
            try {
              await handler(codec.decode(m.data), m.subject.slice(prefix.length));
            } catch {
              /* a subscriber's failure does not stop the stream */
            }
          }
        })().catch(() => {});
        // On a cluster, the node holding this (ephemeral, one-replica) consumer can die with it; the
        // client did not always recover by itself (test/infra/ha-failover.test.ts: the subscriber
        // stalled for good). Missed heartbeats or a consumer gone: it is made again after lastSeq.
        (async () => {
          for await (const st of await messages.status()) {
            const lost =
              (st.type === ConsumerEvents.HeartbeatsMissed && Number(st.data) >= 2) ||
              st.type === ConsumerEvents.ConsumerDeleted ||
              st.type === ConsumerEvents.ConsumerNotFound;
            if (!lost) continue;
            // Made again first: closing a consumer whose node is gone can wait for ever.
            reopen();
            messages.close().catch(() => {});
            return;
          }
        })().catch(() => {});
      };
      const reopen = () => {
        if (stopped || closed) return;
        const t = setTimeout(() => {
          if (stopped || closed || !js) return reopen();
          open().catch(() => reopen());
        }, 500);
        t.unref();
      };
      await open();
      return async () => {
        stopped = true;
        await current?.close().catch(() => {});
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
      signalReady(); // messages held for another try are given up now
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
