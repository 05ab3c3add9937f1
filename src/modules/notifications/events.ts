// Notifications made from other modules' domain events (durable, on the platform job queue):
// an accepted invitation tells its inviter; an API key entering its expiry warning (the
// `partner_api_key_expiring` alert) tells the organisation's administrators. Each honours the
// recipient's preferences (NotificationService.notify).
import type { Db } from '../../infra/db/index.ts';
import type { Job } from '../../platform/jobs.ts';
import type { Members } from '../identity/index.ts';
import type { NotificationService } from './service.ts';

export const INVITATION_JOB = 'notifications.invitation-accepted';
export const ALERT_JOB = 'notifications.alert-raised';
const KEY_EXPIRING_ALERT = 'partner_api_key_expiring';

interface InvitationAccepted {
  org_id: string;
  invitation_id: string;
  invited_by: string | null;
  user_id: string;
  email: string;
  role: string;
}

interface AlertRaised {
  org_id: string;
  alert: { id: string; type: string; title: string; details?: Record<string, unknown> };
}

export function createNotificationEvents(deps: { db: Db; members: Members; notifications: NotificationService }) {
  const { db, members, notifications } = deps;
  return {
    async invitationAccepted(job: Job<InvitationAccepted>): Promise<void> {
      const e = job.payload;
      if (!e.invited_by) return;
      await db.tx(async (q) => {
        // The inviter may have left the organisation meanwhile: then nobody is told.
        if (!(await members.member(q, e.org_id, e.invited_by!))) return;
        await notifications.notify(q, {
          orgId: e.org_id,
          userId: e.invited_by!,
          kind: 'invitation_accepted',
          title: `${e.email} accepted your invitation and joined as ${e.role}`,
          data: { invitation_id: e.invitation_id, user_id: e.user_id, role: e.role },
        });
      });
    },

    async alertRaised(job: Job<AlertRaised>): Promise<void> {
      const { org_id: orgId, alert } = job.payload;
      if (alert.type !== KEY_EXPIRING_ALERT) return;
      await db.tx(async (q) => {
        for (const admin of await members.withRole(q, orgId, 'ORG_ADMIN')) {
          await notifications.notify(q, {
            orgId,
            userId: admin.id,
            kind: 'api_key_expiring',
            title: alert.title,
            link: '/api/devtools/apikeys',
            data: { alert_id: alert.id, ...(alert.details ?? {}) },
          });
        }
      });
    },
  };
}
