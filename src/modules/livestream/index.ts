// The organisation's live stream as server-sent events (our addition to the API, decision 0231):
// telemetry batches as ingestion streams them (bus subject `telemetry.<org>`) and alert
// transitions (the durable `alert.raised` / `alert.resolved` events, re-published on the bus as
// `live.alerts.<org>` by whichever instance runs the job), so every instance's subscribers see
// both. One bus subscription per organisation per instance, shared by its subscribers; each
// subscriber has a bounded buffer (a slow reader loses the oldest events and is told how many).
import { type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { ALERT_RAISED, ALERT_RESOLVED } from '../alerts/index.ts';
import { liveRoutes } from './routes.ts';
import { createLiveHub, ALERT_SUBJECT } from './hub.ts';

const RELAY_JOB = 'livestream.alert-relay';

export const liveModule: ModuleFactory = (deps) => {
  const hub = createLiveHub({ bus: deps.bus, log: deps.log });
  return {
    name: 'livestream',
    tags: { live: 'The organisation live stream (server-sent events): telemetry and alert transitions as they happen.' },
    operations: liveRoutes(hub),
    background: {
      jobs: [
        {
          kind: RELAY_JOB,
          handler: async (job: { payload: { org_id?: string; alert?: Record<string, unknown> } }) => {
            const orgId = job.payload.org_id;
            if (!orgId || !job.payload.alert) return;
            const a = job.payload.alert;
            await deps.bus.publish(ALERT_SUBJECT(orgId), {
              transition: a.status === 'resolved' ? 'resolved' : 'raised',
              alert: {
                id: a.id, type: a.type, source: a.source, severity: a.severity, status: a.status, title: a.title,
                subject: a.subject ?? null, raised_at: a.raised_at, resolved_at: a.resolved_at ?? null,
              },
            });
          },
        },
      ],
      subscriptions: [
        { topic: ALERT_RAISED, kind: RELAY_JOB },
        { topic: ALERT_RESOLVED, kind: RELAY_JOB },
      ],
    },
    closing: () => hub.close(),
  };
};

export const liveDefinition: ModuleDefinition = {
  name: 'livestream',
  dependsOn: ['orgs', 'telemetry', 'alerts'],
  create: liveModule,
};
