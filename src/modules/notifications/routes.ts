// Notifications: the calling user's own (endpoints.md 4.5).
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { Component, CursorParam, LimitParam, Nullable, Page, Timestamp, ErrorResponse } from '../../platform/schema-kit.ts';
import { HHMM, KIND_NAMES, NOTIFICATION_KINDS, type NotificationService } from './service.ts';

const tags = ['notifications'];

const kindList = KIND_NAMES.map((k) => `\`${k}\` (${NOTIFICATION_KINDS[k]})`).join('; ');

export const Notification = Component(
  'Notification',
  Type.Object({
    id: Type.String(),
    kind: Type.String({ description: `One of: ${kindList}` }),
    title: Type.String(),
    body: Type.String(),
    link: Nullable(Type.String(), 'Path of the resource the notification is about, when there is one'),
    data: Type.Object({}, { additionalProperties: true, description: 'Ids of what the notification is about (alert_id, rule_id, ...)' }),
    created_at: Timestamp,
    read: Type.Boolean(),
    read_at: Nullable(Timestamp),
  }),
);

const Kinds = Type.Object(Object.fromEntries(KIND_NAMES.map((k) => [k, Type.Boolean({ description: NOTIFICATION_KINDS[k] })])), {
  additionalProperties: false,
});
const Channels = Type.Object(
  {
    in_app: Type.Boolean({ description: 'Notifications in the app (this list)' }),
    email: Type.Boolean({ description: "Email to the user's sign-in address, for alerts routed to them" }),
  },
  { additionalProperties: false },
);
const QuietHours = Type.Object(
  {
    start: Type.String({ pattern: HHMM.source, description: 'HH:MM local time, inclusive' }),
    end: Type.String({ pattern: HHMM.source, description: 'HH:MM local time, exclusive; before start = spans midnight' }),
    timezone: Type.String({ minLength: 1, maxLength: 64, default: 'Europe/London', description: 'IANA time zone, e.g. Europe/London' }),
  },
  { additionalProperties: false },
);

export const Preferences = Component(
  'NotificationPreferences',
  Type.Object({
    kinds: Kinds,
    channels: Channels,
    quiet_hours: Nullable(QuietHours, 'While quiet, alert email to this user is held (recorded `suppressed`) and in-app notifications still recorded'),
    updated_at: Nullable(Timestamp, 'Null while the defaults apply'),
  }),
);

const PreferencesBody = Type.Object(
  {
    kinds: Type.Optional(Type.Partial(Kinds, { additionalProperties: false })),
    channels: Type.Optional(Type.Partial(Channels, { additionalProperties: false })),
    quiet_hours: Type.Optional(Nullable(QuietHours)),
  },
  { additionalProperties: false },
);

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function notificationOperations(service: NotificationService) {
  return [
    op({
      operationId: 'listNotifications',
      method: 'GET',
      path: '/api/notifications/',
      summary: "The calling user's notifications, newest first",
      description: "Only the calling user's own, in the organisation of the token. Cursor pages; `unread_only=true` and `kind` filter.",
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object({
          limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
          cursor: Type.Optional(CursorParam),
          unread_only: Type.Optional(Type.Boolean()),
          kind: Type.Optional(Type.Union(KIND_NAMES.map((k) => Type.Literal(k)))),
        }),
        response: { 200: Page('notifications', Notification), 400: ErrorResponse },
      },
      handler: async ({ ctx, query }) => service.list(ctx, query),
    }),
    op({
      operationId: 'countUnreadNotifications',
      method: 'GET',
      path: '/api/notifications/unread-count',
      summary: "How many of the calling user's notifications are unread",
      description: "The calling user's unread notifications in the organisation of the token.",
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Type.Object({ unread: Type.Integer({ minimum: 0 }) }) } },
      handler: async ({ ctx }) => service.unreadCount(ctx),
    }),
    op({
      operationId: 'markNotificationRead',
      method: 'POST',
      path: '/api/notifications/{notification_id}/read',
      summary: 'Mark one notification read',
      description: "Idempotent: the first read time is kept. Another user's notification is 404.",
      schema: { params: Type.Object({ notification_id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 200: Notification, 404: ErrorResponse } },
      handler: async ({ ctx, params }) => service.markRead(ctx, params.notification_id),
    }),
    op({
      operationId: 'markAllNotificationsRead',
      method: 'POST',
      path: '/api/notifications/read-all',
      summary: 'Mark every unread notification of the calling user read',
      description: 'Every notification of the calling user that is unread becomes read now; `marked` says how many.',
      schema: {
        response: { 200: Type.Object({ marked: Type.Integer({ minimum: 0, description: 'How many were unread' }), unread: Type.Integer({ minimum: 0 }) }) },
      },
      handler: async ({ ctx }) => service.markAllRead(ctx),
    }),
    op({
      operationId: 'getNotificationPreferences',
      method: 'GET',
      path: '/api/notifications/preferences',
      summary: "The calling user's notification preferences",
      description: 'Defaults until saved: every kind on, in-app on, email off, no quiet hours.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Preferences } },
      handler: async ({ ctx }) => service.getPreferences(ctx),
    }),
    op({
      operationId: 'putNotificationPreferences',
      method: 'PUT',
      path: '/api/notifications/preferences',
      summary: "Set the calling user's notification preferences",
      description:
        'The whole set: members left out take their defaults. Alert routing honours them: a kind switched off is not sent to the user; ' +
        'email reaches the user only when `channels.email` is on and not during quiet hours (held and sent by a later dispatch).',
      dataBasis: { basis: 'configured' },
      schema: { body: PreferencesBody, response: { 200: Preferences, 422: ErrorResponse } },
      handler: async ({ ctx, body }) => service.putPreferences(ctx, body),
    }),
  ];
}
