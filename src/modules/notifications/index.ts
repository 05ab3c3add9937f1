// Notifications: each user's own in-app notifications and preferences. Other modules notify a user
// through NOTIFICATIONS (`notify` honours the user's kinds and channels; `preferences` for routing).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import { createNotificationService, type NotificationService } from './service.ts';
import { notificationOperations } from './routes.ts';
import { createNotificationEvents, ALERT_JOB, INVITATION_JOB } from './events.ts';
import { INVITATION_ACCEPTED, MEMBERS } from '../identity/index.ts';
import { ALERT_RAISED } from '../alerts/index.ts';

export { inQuietHours, NOTIFICATION_KINDS, type NotificationKind, type Preferences as NotificationPreferences } from './service.ts';

export type { NotificationService } from './service.ts';
export type Notifications = Pick<NotificationService, 'notify' | 'preferences'>;
/** `deps.services.get(NOTIFICATIONS).notify(q, {orgId, userId, kind, title, ...})`. */
export const NOTIFICATIONS = serviceKey<NotificationService>('notifications.service');

export const notificationsModule: ModuleCreate = (deps) => {
  const notifications = deps.services.get(NOTIFICATIONS);
  const events = createNotificationEvents({ db: deps.backgroundDb, members: deps.services.get(MEMBERS), notifications });
  return {
    tags: { notifications: "The calling user's in-app notifications, unread count and preferences (kinds, channels, quiet hours)." },
    operations: notificationOperations(notifications),
    background: {
      jobs: [
        { kind: INVITATION_JOB, handler: events.invitationAccepted },
        { kind: ALERT_JOB, handler: events.alertRaised },
      ],
      subscriptions: [
        { topic: INVITATION_ACCEPTED, kind: INVITATION_JOB },
        { topic: ALERT_RAISED, kind: ALERT_JOB },
      ],
    },
  };
};

/** This module as the module list names it. */
export const notificationsDefinition: ModuleDefinition = {
  name: 'notifications',
  dependsOn: ['orgs', 'identity', 'alerts'],
  migrations: migrationsDir(import.meta.url),
  provides: (deps, registry) => registry.provide(NOTIFICATIONS, createNotificationService({ db: deps.db, clock: deps.clock, cursors: deps.cursors })),
  create: notificationsModule,
};
