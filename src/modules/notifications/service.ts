// Notifications: the calling user's own in-app notifications and their preferences. Other modules
// notify a user through the NOTIFICATIONS service (index.ts), which honours the user's preferences.
import { randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { wordsOf } from '../../kit/vocabulary.ts';
import { notificationStore, type NotificationRow, type PreferencesRow } from './store.ts';

/** The kinds of notification the service sends; each can be switched off in the preferences. */
export const NOTIFICATION_KINDS = {
  alert_routed: 'An EMS alert was routed to you by a routing rule.',
  alert_escalated: 'An EMS alert nobody acknowledged was escalated to you.',
  alert_assigned: 'An alert was assigned to you.',
  work_order_assigned: 'A field work order was assigned to you.',
  invitation_accepted: 'Someone you invited joined the organisation.',
  api_key_expiring: 'An API key of the organisation expires within 14 days.',
} as const;
export type NotificationKind = keyof typeof NOTIFICATION_KINDS;
export const KIND_NAMES = wordsOf(NOTIFICATION_KINDS);

/** Channels a notification may reach the user by: in the app, and by email to their sign-in address. */
export const NOTIFICATION_CHANNELS = ['in_app', 'email'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export interface QuietHours {
  /** HH:MM local time in `timezone`; quiet from start up to (not including) end; may span midnight. */
  start: string;
  end: string;
  timezone: string;
}

export interface Preferences {
  kinds: Record<NotificationKind, boolean>;
  channels: Record<NotificationChannel, boolean>;
  quiet_hours: QuietHours | null;
  updated_at: string | null;
}

export const DEFAULT_PREFERENCES: Omit<Preferences, 'updated_at'> = {
  kinds: Object.fromEntries(KIND_NAMES.map((k) => [k, true])) as Record<NotificationKind, boolean>,
  channels: { in_app: true, email: false },
  quiet_hours: null,
};

function preferencesOf(row: PreferencesRow | null): Preferences {
  if (!row) return { ...structuredClone(DEFAULT_PREFERENCES), updated_at: null };
  return {
    // Kinds added after the user saved their preferences are on until switched off.
    kinds: { ...DEFAULT_PREFERENCES.kinds, ...(row.kinds as Record<NotificationKind, boolean>) },
    channels: { ...DEFAULT_PREFERENCES.channels, ...(row.channels as Record<NotificationChannel, boolean>) },
    quiet_hours: row.quiet_hours,
    updated_at: isoTime(row.updated_at),
  };
}

const HHMM = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/** Minutes after local midnight of `at` in the time zone. */
function localMinutes(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const h = Number(parts.find((p) => p.type === 'hour')!.value);
  const m = Number(parts.find((p) => p.type === 'minute')!.value);
  return h * 60 + m;
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** True when `at` falls in the quiet hours (start inclusive, end exclusive; across midnight when start > end). */
export function inQuietHours(q: QuietHours | null, at: Date): boolean {
  if (!q) return false;
  const now = localMinutes(at, q.timezone);
  const s = toMinutes(q.start);
  const e = toMinutes(q.end);
  if (s === e) return false;
  return s < e ? now >= s && now < e : now >= s || now < e;
}

export function validTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function notificationView(r: NotificationRow) {
  return {
    id: r.id,
    kind: r.kind,
    title: r.title,
    body: r.body,
    link: r.link,
    data: r.data ?? {},
    created_at: isoTime(r.created_at),
    read: r.read_at !== null,
    read_at: isoTimeOrNull(r.read_at),
  };
}
export type NotificationView = ReturnType<typeof notificationView>;

export interface Notify {
  orgId: string;
  userId: string;
  kind: NotificationKind;
  title: string;
  body?: string;
  link?: string | null;
  data?: Record<string, unknown>;
}

export function createNotificationService(deps: { db: Db; clock: Clock; cursors: CursorCodec }) {
  const { db, clock, cursors } = deps;

  function userOf(ctx: RequestContext): string {
    // Every notification operation is for a signed-in user (bearer access); a token without a user is refused.
    if (ctx.actor.kind !== 'user') throw errors.forbidden('Insufficient permissions');
    return ctx.actor.userId;
  }

  return {
    /** For other modules: the user's preferences as routing honours them. */
    async preferences(q: Queryable, orgId: string, userId: string): Promise<Preferences> {
      return preferencesOf(await notificationStore.preferences(q, orgId, userId));
    },

    /**
     * For other modules: records an in-app notification unless the user switched the kind or the
     * in-app channel off (then null). Runs in the caller's transaction.
     */
    async notify(q: Queryable, n: Notify): Promise<NotificationView | null> {
      const prefs = preferencesOf(await notificationStore.preferences(q, n.orgId, n.userId));
      if (!prefs.kinds[n.kind] || !prefs.channels.in_app) return null;
      const row = await notificationStore.insert(q, n.orgId, n.userId, {
        id: `ntf_${randomUUID()}`,
        kind: n.kind,
        title: n.title,
        body: n.body ?? '',
        link: n.link ?? null,
        data: n.data ?? {},
        at: clock.now(),
      });
      return notificationView(row);
    },

    async list(ctx: RequestContext, query: { limit?: number; cursor?: string; unread_only?: boolean; kind?: string }) {
      const userId = userOf(ctx);
      const limit = query.limit ?? 50;
      const filters = { unread_only: query.unread_only ?? false, kind: query.kind ?? null };
      const binding = { op: 'listNotifications', orgId: `${ctx.orgId}/${userId}`, filters };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const rows = await notificationStore.page(db, ctx.orgId, userId, {
        unreadOnly: filters.unread_only,
        kind: query.kind,
        before: paged.after && { t: paged.after.t, seq: Number(paged.after.id) },
        limit: limit + 1,
      });
      const page = paged.page(rows, (r) => ({ t: r.created_key, id: r.seq }));
      return { notifications: page.items.map(notificationView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    async unreadCount(ctx: RequestContext) {
      return { unread: await notificationStore.unreadCount(db, ctx.orgId, userOf(ctx)) };
    },

    async markRead(ctx: RequestContext, id: string) {
      const row = await notificationStore.markRead(db, ctx.orgId, userOf(ctx), id, clock.now());
      if (!row) throw errors.notFound();
      return notificationView(row);
    },

    async markAllRead(ctx: RequestContext) {
      const userId = userOf(ctx);
      const marked = await notificationStore.markAllRead(db, ctx.orgId, userId, clock.now());
      return { marked, unread: 0 };
    },

    async getPreferences(ctx: RequestContext) {
      return preferencesOf(await notificationStore.preferences(db, ctx.orgId, userOf(ctx)));
    },

    async putPreferences(
      ctx: RequestContext,
      body: { kinds?: Record<string, boolean | undefined>; channels?: Record<string, boolean | undefined>; quiet_hours?: QuietHours | null },
    ) {
      const userId = userOf(ctx);
      const bad = [];
      for (const k of Object.keys(body.kinds ?? {})) {
        if (!(k in NOTIFICATION_KINDS)) bad.push(fieldError(['body', 'kinds', k], `unknown kind; one of ${KIND_NAMES.join(', ')}`, k));
      }
      const q = body.quiet_hours;
      if (q && !validTimeZone(q.timezone)) bad.push(fieldError(['body', 'quiet_hours', 'timezone'], 'not an IANA time zone', q.timezone));
      if (q && q.start === q.end) bad.push(fieldError(['body', 'quiet_hours', 'end'], 'end must differ from start', q.end));
      if (bad.length) throw errors.validation(bad);
      // A PUT states the whole preference set; members left out take their defaults.
      const saved = await notificationStore.savePreferences(
        db,
        ctx.orgId,
        userId,
        {
          kinds: { ...DEFAULT_PREFERENCES.kinds, ...(body.kinds ?? {}) } as Record<string, boolean>,
          channels: { ...DEFAULT_PREFERENCES.channels, ...(body.channels ?? {}) } as Record<string, boolean>,
          quiet_hours: q ?? null,
        },
        clock.now(),
      );
      return preferencesOf(saved);
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
export { HHMM };
