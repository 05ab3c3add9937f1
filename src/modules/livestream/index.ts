// The organisation's live stream as server-sent events (our addition to the API, decision 0231):
// telemetry batches as ingestion streams them (bus subject `telemetry.<org>`) and alert
// transitions (the durable `alert.raised` / `alert.resolved` / `alert.changed` events, re-published on the bus as
// `live.alerts.<org>` by whichever instance runs the job), so every instance's subscribers see
// both. One bus subscription per organisation per instance, shared by its subscribers; each
// subscriber has a bounded buffer (a slow reader loses the oldest events and is told how many).
// Each stream is held to its session and the streams are capped per user and per organisation
// (streams.ts, decision 0290).
import { type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { SESSION_ACCESS } from '../identity/index.ts';
import { liveConfig } from './config.ts';
import { createStreamRegistry, SESSION_CHECK_SUBJECT, type EndReason } from './streams.ts';
import { ALERT_CHANGED, ALERT_RAISED, ALERT_RESOLVED } from '../alerts/index.ts';
import { liveRoutes } from './routes.ts';
import { createLiveHub, ALERT_SUBJECT } from './hub.ts';

const RELAY_JOB = 'livestream.alert-relay';
const SESSION_CHECK = 'livestream.session-check';

export const liveModule: ModuleCreate = (deps) => {
  const hub = createLiveHub({ bus: deps.bus, log: deps.log });
  const settings = sectionOf(deps.config, liveConfig);
  const ended = deps.metrics.counter<'reason'>({
    name: 'live_streams_ended_total',
    help: 'Live streams the service ended, by reason (session revoked, token expired, access withdrawn, role changed, stopping)',
    labelNames: ['reason'],
  });
  const streams = createStreamRegistry({
    bus: deps.bus,
    clock: deps.clock,
    log: deps.log,
    sessions: deps.services.get(SESSION_ACCESS),
    limits: { perUser: settings.streamsPerUser, perOrganisation: settings.streamsPerOrganisation },
    onEnd: (reason: EndReason) => ended.inc({ reason }),
  });
  deps.metrics.gauge({
    name: 'live_streams_open',
    help: 'Live event streams open on this instance',
    collect: (g) => g.set(streams.count()),
  });
  return {
    tags: { live: 'The organisation live stream (server-sent events): telemetry and alert transitions as they happen.' },
    operations: liveRoutes(hub, streams, () => deps.metrics.rateLimited.inc({ policy: 'live-streams' })),
    background: {
      jobs: [
        {
          kind: RELAY_JOB,
          handler: async (job: { payload: { org_id?: string; transition?: string; alert?: Record<string, unknown> } }) => {
            const orgId = job.payload.org_id;
            if (!orgId || !job.payload.alert) return;
            const a = job.payload.alert;
            // alert.changed names its transition (a person acknowledged or assigned it, decision 0363).
            const changed = job.payload.transition === 'acknowledged' || job.payload.transition === 'assigned';
            await deps.bus.publish(ALERT_SUBJECT(orgId), {
              transition: changed ? job.payload.transition : a.status === 'resolved' ? 'resolved' : 'raised',
              alert: {
                id: a.id,
                type: a.type,
                source: a.source,
                severity: a.severity,
                status: a.status,
                title: a.title,
                subject: a.subject ?? null,
                raised_at: a.raised_at,
                resolved_at: a.resolved_at ?? null,
                ...(changed && { acknowledged_at: a.acknowledged_at ?? null, assigned_to: a.assigned_to ?? null }),
              },
            });
          },
        },
      ],
      // Every instance checks its own streams when this (run by one instance) is published.
      schedules: [
        {
          kind: SESSION_CHECK,
          everyMs: settings.sessionCheckSeconds * 1000,
          run: () => deps.bus.publish(SESSION_CHECK_SUBJECT, {}).catch((err) => deps.log.warn({ err }, 'live: session check not published')),
        },
      ],
      subscriptions: [
        { topic: ALERT_RAISED, kind: RELAY_JOB },
        { topic: ALERT_RESOLVED, kind: RELAY_JOB },
        { topic: ALERT_CHANGED, kind: RELAY_JOB },
      ],
    },
    closing: async () => {
      await streams.close();
      await hub.close();
    },
  };
};

export const liveDefinition: ModuleDefinition = {
  name: 'livestream',
  dependsOn: ['orgs', 'identity', 'telemetry', 'alerts'],
  config: liveConfig,
  create: liveModule,
};
