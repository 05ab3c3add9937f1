// Events, deliveries and attempts. Every function takes the organisation first and filters on it,
// except the retention purge (marked), which removes expired rows of every organisation.
import type { Queryable } from '../../../infra/db/index.ts';
import { tsKey, type Environment } from '../common.ts';

export interface EventRow {
  id: string;
  org_id: string;
  environment: Environment;
  type: string;
  body: string;
  created_at: Date;
}

export interface DeliveryRow {
  seq: number;
  id: string;
  org_id: string;
  endpoint_id: string;
  event_id: string;
  status: 'pending' | 'succeeded' | 'failed' | 'cancelled';
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  replay: boolean;
  created_at: Date;
  completed_at: Date | null;
  event_type: string;
  created_key: string;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  status_code: number | null;
  outcome: 'succeeded' | 'failed';
  error: string | null;
  duration_ms: number;
}

const DCOLS = `d.seq, d.id, d.org_id, d.endpoint_id, d.event_id, d.status, d.attempt_count, d.next_attempt_at, d.last_status_code,
  d.last_error, d.replay, d.created_at, d.completed_at, e.type as event_type, ${tsKey('d.created_at')} as created_key`;

export const deliveryStore = {
  async insertEvent(q: Queryable, orgId: string, e: Omit<EventRow, 'org_id'>): Promise<void> {
    await q.query('insert into webhook_events (id, org_id, environment, type, body, created_at) values ($2, $1, $3, $4, $5, $6)', [
      orgId,
      e.id,
      e.environment,
      e.type,
      e.body,
      e.created_at,
    ]);
  },

  async getEvent(q: Queryable, orgId: string, id: string): Promise<EventRow | null> {
    const r = await q.query<EventRow>('select id, org_id, environment, type, body, created_at from webhook_events where org_id = $1 and id = $2', [orgId, id]);
    return r.rows[0] ?? null;
  },

  async insertDelivery(
    q: Queryable,
    orgId: string,
    d: { id: string; endpointId: string; eventId: string; nextAttemptAt: Date; replay: boolean; now: Date },
  ): Promise<void> {
    await q.query(
      `insert into webhook_deliveries (id, org_id, endpoint_id, event_id, status, next_attempt_at, replay, created_at)
       values ($2, $1, $3, $4, 'pending', $5, $6, $7)`,
      [orgId, d.id, d.endpointId, d.eventId, d.nextAttemptAt, d.replay, d.now],
    );
  },

  async getDelivery(q: Queryable, orgId: string, id: string): Promise<DeliveryRow | null> {
    const r = await q.query<DeliveryRow>(
      `select ${DCOLS} from webhook_deliveries d join webhook_events e on e.id = d.event_id where d.org_id = $1 and d.id = $2`,
      [orgId, id],
    );
    return r.rows[0] ?? null;
  },

  /** Records one attempt and the delivery's new state; false when the delivery is no longer pending. */
  async recordAttempt(
    q: Queryable,
    orgId: string,
    a: Omit<AttemptRow, 'delivery_id'> & { deliveryId: string; status: DeliveryRow['status']; nextAttemptAt: Date | null },
  ): Promise<boolean> {
    const upd = await q.query(
      `update webhook_deliveries set status = $3, attempt_count = $4, next_attempt_at = $5, last_status_code = $6,
         last_error = $7, completed_at = case when $3 = 'pending' then null else $8::timestamptz end
       where org_id = $1 and id = $2 and status = 'pending' and attempt_count = $4 - 1`,
      [orgId, a.deliveryId, a.status, a.attempt, a.nextAttemptAt, a.status_code, a.error, a.attempted_at],
    );
    if (upd.rowCount !== 1) return false;
    await q.query(
      `insert into webhook_attempts (org_id, delivery_id, attempt, attempted_at, status_code, outcome, error, duration_ms)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [orgId, a.deliveryId, a.attempt, a.attempted_at, a.status_code, a.outcome, a.error, a.duration_ms],
    );
    return true;
  },

  /** Pending deliveries to the organisation's enabled endpoints of one environment. */
  async pendingCount(q: Queryable, orgId: string, env: Environment): Promise<number> {
    const r = await q.query<{ n: number }>(
      `select count(*)::int as n from webhook_deliveries d
       join webhook_endpoints w on w.org_id = d.org_id and w.id = d.endpoint_id
       where d.org_id = $1 and d.status = 'pending' and w.environment = $2 and w.enabled`,
      [orgId, env],
    );
    return r.rows[0].n;
  },

  async cancel(q: Queryable, orgId: string, deliveryId: string, reason: string, now: Date): Promise<void> {
    await q.query(
      `update webhook_deliveries set status = 'cancelled', last_error = $3, next_attempt_at = null, completed_at = $4
       where org_id = $1 and id = $2 and status = 'pending'`,
      [orgId, deliveryId, reason, now],
    );
  },

  async cancelPendingOfEndpoint(q: Queryable, orgId: string, endpointId: string, reason: string, now: Date): Promise<number> {
    const r = await q.query(
      `update webhook_deliveries set status = 'cancelled', last_error = $3, next_attempt_at = null, completed_at = $4
       where org_id = $1 and endpoint_id = $2 and status = 'pending'`,
      [orgId, endpointId, reason, now],
    );
    return r.rowCount;
  },

  /** Newest first, ties by sequence. */
  async page(q: Queryable, orgId: string, endpointId: string, before: { t: string; seq: number } | null, limit: number) {
    const r = await q.query<DeliveryRow>(
      `select ${DCOLS} from webhook_deliveries d join webhook_events e on e.id = d.event_id
       where d.org_id = $1 and d.endpoint_id = $2
         and ($3::timestamptz is null or (d.created_at, d.seq) < ($3::timestamptz, $4::bigint))
       order by d.created_at desc, d.seq desc
       limit $5`,
      [orgId, endpointId, before?.t ?? null, before?.seq ?? 0, limit],
    );
    return r.rows;
  },

  async attemptsOf(q: Queryable, orgId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    const r = await q.query<AttemptRow>(
      `select delivery_id, attempt, attempted_at, status_code, outcome, error, duration_ms from webhook_attempts
       where org_id = $1 and delivery_id = any($2::text[]) order by delivery_id, attempt`,
      [orgId, deliveryIds],
    );
    return r.rows;
  },

  /** Retention: events (with their deliveries and attempts) older than `before`. Every organisation. */
  async purgeEventsBefore(q: Queryable, before: Date): Promise<number> {
    return (await q.query('delete from webhook_events where created_at < $1', [before])).rowCount;
  },

  /**
   * device.offline watchdog: when each device was last reported offline (the ts of its newest
   * record then), for these devices or, without ids, every device reported.
   */
  async offlineSince(q: Queryable, orgId: string, assetIds?: readonly string[]): Promise<{ asset_id: string; last_ts: Date }[]> {
    const r = await q.query<{ asset_id: string; last_ts: Date }>(
      `select asset_id, last_ts from device_offline_state
       where org_id = $1 and ($2::text[] is null or asset_id = any($2::text[])) order by asset_id`,
      [orgId, assetIds ?? null],
    );
    return r.rows;
  },

  async markSilent(q: Queryable, orgId: string, assetId: string, lastTs: Date, now: Date): Promise<boolean> {
    const r = await q.query(
      `insert into device_offline_state (org_id, asset_id, last_ts, reported_at) values ($1, $2, $3, $4)
       on conflict (org_id, asset_id) do update set last_ts = excluded.last_ts, reported_at = excluded.reported_at
       where device_offline_state.last_ts < excluded.last_ts`,
      [orgId, assetId, lastTs, now],
    );
    return r.rowCount === 1;
  },

  /** Forgets devices that reported again, so a later silence is reported anew. */
  async forgetOffline(q: Queryable, orgId: string, assetIds: readonly string[]): Promise<void> {
    if (assetIds.length === 0) return;
    await q.query('delete from device_offline_state where org_id = $1 and asset_id = any($2::text[])', [orgId, assetIds]);
  },
};
