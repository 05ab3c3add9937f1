// SQL of notifications and notification preferences. Every function takes the organisation and
// the user first and filters on both: a user only ever sees their own.
import type { Queryable } from '../../infra/db/index.ts';

export interface NotificationRow {
  seq: number;
  id: string;
  org_id: string;
  user_id: string;
  kind: string;
  title: string;
  body: string;
  link: string | null;
  data: Record<string, unknown>;
  created_at: Date;
  read_at: Date | null;
  /** created_at as exact text (microseconds), for cursors. */
  created_key: string;
}

const COLS = `seq, id, org_id, user_id, kind, title, body, link, data, created_at, read_at,
  to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key`;

export interface PreferencesRow {
  kinds: Record<string, boolean>;
  channels: Record<string, boolean>;
  quiet_hours: { start: string; end: string; timezone: string } | null;
  updated_at: Date;
}

export const notificationStore = {
  async insert(
    q: Queryable,
    orgId: string,
    userId: string,
    n: { id: string; kind: string; title: string; body: string; link: string | null; data: Record<string, unknown>; at: Date },
  ): Promise<NotificationRow> {
    const r = await q.query<NotificationRow>(
      `insert into notifications (id, org_id, user_id, kind, title, body, link, data, created_at)
       values ($3, $1, $2, $4, $5, $6, $7, $8, $9) returning ${COLS}`,
      [orgId, userId, n.id, n.kind, n.title, n.body, n.link, JSON.stringify(n.data), n.at],
    );
    return r.rows[0];
  },

  /** Newest first, ties by seq; `before` is the keyset position. */
  async page(
    q: Queryable,
    orgId: string,
    userId: string,
    opts: { unreadOnly: boolean; kind?: string; before?: { t: string; seq: number }; limit: number },
  ): Promise<NotificationRow[]> {
    const r = await q.query<NotificationRow>(
      `select ${COLS} from notifications
       where org_id = $1 and user_id = $2
         and (not $3::boolean or read_at is null)
         and ($4::text is null or kind = $4)
         and ($5::timestamptz is null or (created_at, seq) < ($5::timestamptz, $6::bigint))
       order by created_at desc, seq desc
       limit $7`,
      [orgId, userId, opts.unreadOnly, opts.kind ?? null, opts.before?.t ?? null, opts.before?.seq ?? 0, opts.limit],
    );
    return r.rows;
  },

  async unreadCount(q: Queryable, orgId: string, userId: string): Promise<number> {
    const r = await q.query<{ n: number }>('select count(*)::int as n from notifications where org_id = $1 and user_id = $2 and read_at is null', [
      orgId,
      userId,
    ]);
    return r.rows[0].n;
  },

  /** Marks one read (first read time kept); null when it is not this user's. */
  async markRead(q: Queryable, orgId: string, userId: string, id: string, at: Date): Promise<NotificationRow | null> {
    const r = await q.query<NotificationRow>(
      `update notifications set read_at = coalesce(read_at, $4)
       where org_id = $1 and user_id = $2 and id = $3 returning ${COLS}`,
      [orgId, userId, id, at],
    );
    return r.rows[0] ?? null;
  },

  async markAllRead(q: Queryable, orgId: string, userId: string, at: Date): Promise<number> {
    const r = await q.query<{ n: number }>(
      `with u as (update notifications set read_at = $3 where org_id = $1 and user_id = $2 and read_at is null returning 1)
       select count(*)::int as n from u`,
      [orgId, userId, at],
    );
    return r.rows[0].n;
  },

  async preferences(q: Queryable, orgId: string, userId: string): Promise<PreferencesRow | null> {
    const r = await q.query<PreferencesRow>(
      'select kinds, channels, quiet_hours, updated_at from notification_preferences where org_id = $1 and user_id = $2',
      [orgId, userId],
    );
    return r.rows[0] ?? null;
  },

  async savePreferences(q: Queryable, orgId: string, userId: string, p: Omit<PreferencesRow, 'updated_at'>, at: Date): Promise<PreferencesRow> {
    const r = await q.query<PreferencesRow>(
      `insert into notification_preferences (org_id, user_id, kinds, channels, quiet_hours, updated_at)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (org_id, user_id) do update set kinds = excluded.kinds, channels = excluded.channels,
         quiet_hours = excluded.quiet_hours, updated_at = excluded.updated_at
       returning kinds, channels, quiet_hours, updated_at`,
      [orgId, userId, JSON.stringify(p.kinds), JSON.stringify(p.channels), p.quiet_hours ? JSON.stringify(p.quiet_hours) : null, at],
    );
    return r.rows[0];
  },
};
