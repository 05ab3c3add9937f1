// Fan-out of the live stream to this instance's subscribers. The bus carries every event to every
// instance; here one bus subscription per organisation (made with its first subscriber, dropped
// with its last) feeds each subscriber's bounded buffer.
import type { FastifyBaseLogger } from 'fastify';
import type { Bus } from '../../infra/bus/index.ts';

export const TELEMETRY_SUBJECT = (orgId: string) => `telemetry.${orgId}`;
export const ALERT_SUBJECT = (orgId: string) => `live.alerts.${orgId}`;

/** Events held for one subscriber that has not read them yet; past this the oldest are dropped. */
export const SUBSCRIBER_BUFFER = 256;

/**
 * Size of those events held at most, counted in characters of their frames (a byte each for the
 * ASCII the stream mostly carries): one event may be megabytes (a telemetry `status` has no length
 * limit). Past this the oldest are dropped too, the newest last (decision 0511).
 */
export const SUBSCRIBER_BUFFER_BYTES = 1024 * 1024;

export interface LiveEvent {
  event: 'telemetry' | 'alert';
  data: unknown;
}

export interface Subscriber {
  /** Called with each event; the subscriber buffers and writes. */
  push(e: LiveEvent): void;
  /** Ends the subscriber's answer (the service is stopping). */
  end(): void;
}

interface OrgFeed {
  subscribers: Set<Subscriber>;
  ready: Promise<Array<() => Promise<void>>>;
}

export interface LiveHub {
  subscribe(orgId: string, s: Subscriber): Promise<() => void>;
  /** Subscribers on this instance (all organisations). */
  count(): number;
  close(): Promise<void>;
}

export function createLiveHub(deps: { bus: Bus; log: FastifyBaseLogger }): LiveHub {
  const feeds = new Map<string, OrgFeed>();
  const closers = new Map<() => void, Subscriber>();

  function fan(orgId: string, e: LiveEvent) {
    const feed = feeds.get(orgId);
    if (!feed) return;
    for (const s of feed.subscribers) s.push(e);
  }

  function telemetryEvent(payload: unknown): LiveEvent | null {
    const p = payload as { received_at?: string; stored?: boolean; records?: Array<Record<string, unknown>> };
    if (!p || !Array.isArray(p.records)) return null;
    return {
      event: 'telemetry',
      data: {
        received_at: p.received_at ?? null,
        stored: p.stored ?? true,
        records: p.records.map((r) => ({
          asset_id: r.asset_id,
          ts: r.ts,
          power_kw: r.power_kw ?? null,
          soc_pct: r.soc_pct ?? null,
          voltage: r.voltage ?? null,
          current: r.current ?? null,
          temp_c: r.temp_c ?? null,
          status: r.status ?? null,
        })),
      },
    };
  }

  return {
    async subscribe(orgId, s) {
      let feed = feeds.get(orgId);
      if (!feed) {
        const subscribers = new Set<Subscriber>();
        const ready = Promise.all([
          deps.bus.subscribe(TELEMETRY_SUBJECT(orgId), (payload) => {
            const e = telemetryEvent(payload);
            if (e) fan(orgId, e);
          }),
          deps.bus.subscribe(ALERT_SUBJECT(orgId), (payload) => fan(orgId, { event: 'alert', data: payload })),
        ]);
        feed = { subscribers, ready };
        feeds.set(orgId, feed);
        ready.catch(() => feeds.get(orgId) === feed && feeds.delete(orgId));
      }
      feed.subscribers.add(s);
      try {
        await feed.ready;
      } catch (err) {
        feed.subscribers.delete(s);
        throw err;
      }
      const f = feed;
      let done = false;
      const unsubscribe = () => {
        if (done) return;
        done = true;
        closers.delete(unsubscribe);
        f.subscribers.delete(s);
        if (f.subscribers.size === 0 && feeds.get(orgId) === f) {
          feeds.delete(orgId);
          f.ready.then((stops) => Promise.all(stops.map((stop) => stop()))).catch((err) => deps.log.warn({ err, orgId }, 'live: unsubscribe failed'));
        }
      };
      closers.set(unsubscribe, s);
      return unsubscribe;
    },
    count: () => [...feeds.values()].reduce((n, f) => n + f.subscribers.size, 0),
    async close() {
      for (const [unsubscribe, s] of [...closers]) {
        s.end();
        unsubscribe();
      }
    },
  };
}
