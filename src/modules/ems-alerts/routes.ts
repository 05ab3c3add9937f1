// EMS alerts, EMS alert routing (module ems/routing) and alert admin (endpoints.md 4.5).
import { Type } from 'typebox';
import { BEARER, withDefaults, type RequestContext } from '../../platform/operation.ts';
import { CursorParam, LimitParam, Page, Timestamp, ErrorResponse } from '../../platform/schema-kit.ts';
import type { OrgDirectory } from '../orgs/index.ts';
import type { Db } from '../../infra/db/index.ts';
import type { Admin } from './admin.ts';
import type { Evaluation } from './evaluate.ts';
import type { Routing } from './routing.ts';
import { IMPACT_METHODS, SOURCES } from './sources.ts';
import { AdminAlert, Delivery, EmsAlert, PolicyBody, PolicyOut, Rule, RuleBody, RoutingResult, SeverityName, SourceName, StaffAlert } from './schemas.ts';
import type { AlertPolicy } from './policy.ts';

const EVAL_METHOD =
  "Each source compares the organisation's own telemetry (half-hourly means over the policy's window) with the policy's thresholds; impact £/day is energy not produced, bought dear or exported over the limit × the site's price, in exact decimal, per the alert's impact_method.";
const PoundsQuery = Type.String({ pattern: '^(0|[1-9][0-9]{0,8})(\\.[0-9]{1,2})?$' });
const AlertIdParams = Type.Object({ alert_id: Type.String({ minLength: 1, maxLength: 100 }) });
const Note = Type.String({ minLength: 1, maxLength: 2000 });

export function emsAlertOperations(deps: { evaluation: Evaluation; routing: Routing; admin: Admin; orgs: OrgDirectory; db: Db }) {
  const { evaluation, routing, admin, orgs, db } = deps;
  const routingEnabled = (ctx: RequestContext) => orgs.hasModule(ctx.orgId, 'ems/routing');
  const emsTags = ['ems-alerts'];
  const routingTags = ['ems-routing'];
  const op = withDefaults({ tags: routingTags, status: 'live', access: BEARER.configure });
  const adminTags = ['alerts'];

  return [
    // ---- EMS alerts
    op({
      operationId: 'listEmsAlerts',
      method: 'GET',
      path: '/api/hardware/ems/alerts',
      summary: 'Open EMS alerts, ranked by pound impact per day',
      description:
        'Highest impact first; equal impacts by raised_at (oldest first), then id. `total_impact_gbp_per_day` is the exact sum of the listed impacts. ' +
        'Alerts are raised only by `POST /api/hardware/ems/alerts/evaluate`. Sources: ' +
        SOURCES.map((s) => `\`${s}\`: ${IMPACT_METHODS[s]}`).join(' '),
      tags: emsTags,
      access: BEARER.read,
      dataBasis: { basis: 'calculated', method: EVAL_METHOD },
      schema: {
        query: Type.Object({
          site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          source: Type.Optional(SourceName),
          severity: Type.Optional(SeverityName),
          min_impact_gbp_per_day: Type.Optional(PoundsQuery),
        }),
        response: {
          200: Type.Object({
            alerts: Type.Array(EmsAlert),
            count: Type.Integer(),
            total_impact_gbp_per_day: Type.String(),
            ranked_by: Type.String(),
          }),
        },
      },
      handler: async ({ ctx, query }) => evaluation.list(ctx, query),
    }),
    op({
      operationId: 'evaluateEmsAlerts',
      method: 'POST',
      path: '/api/hardware/ems/alerts/evaluate',
      summary: "Evaluate the organisation's data: raise, refresh and resolve EMS alerts",
      description:
        'Raises an alert for each new condition (never a second one for a condition already open: its figures are refreshed), resolves open ' +
        'alerts whose condition cleared, and, when the `ems/routing` module is enabled, routes the newly raised alerts through the routing rules ' +
        '(concepts.md 1, demo realm rule 7). No scheduler calls it.',
      tags: emsTags,
      dataBasis: { basis: 'calculated', method: EVAL_METHOD },
      schema: {
        response: {
          200: Type.Object({
            evaluated_at: Timestamp,
            window: Type.Object({ from: Timestamp, to: Timestamp }),
            raised: Type.Array(EmsAlert),
            updated: Type.Integer({ description: 'Open alerts whose condition still holds (figures refreshed)' }),
            resolved: Type.Array(
              Type.Object({
                id: Type.String(),
                source: Type.String(),
                site_id: Type.Union([Type.String(), Type.Null()]),
                asset_id: Type.Union([Type.String(), Type.Null()]),
              }),
            ),
            open_count: Type.Integer(),
            total_impact_gbp_per_day: Type.String(),
            routing: Type.Union([RoutingResult, Type.Null()], { description: 'Null when the ems/routing module is not enabled' }),
          }),
        },
      },
      handler: async ({ ctx }) => {
        const { newly, ...result } = await evaluation.evaluate(ctx);
        const routed = (await routingEnabled(ctx)) ? await routing.route(ctx, result.raised, 'evaluate') : null;
        return { ...result, routing: routed };
      },
    }),
    op({
      operationId: 'getEmsAlertPolicy',
      method: 'GET',
      path: '/api/hardware/ems/alerts/policy',
      summary: 'The EMS alert policy: severity thresholds, window, source settings and prices',
      description:
        'The stored policy over the defaults (`is_default` true when nothing is stored). Severity follows impact: at or above `critical_gbp_per_day` critical, at or above `warning_gbp_per_day` warning, else info.',
      tags: emsTags,
      access: BEARER.read,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: PolicyOut } },
      handler: async ({ ctx }) => evaluation.getPolicy(ctx),
    }),
    op({
      operationId: 'putEmsAlertPolicy',
      method: 'PUT',
      path: '/api/hardware/ems/alerts/policy',
      summary: 'Set the EMS alert policy',
      description: 'The whole policy: members left out take their defaults. Takes effect at the next evaluation. Audited.',
      tags: emsTags,
      dataBasis: { basis: 'configured' },
      schema: { body: PolicyBody, response: { 200: PolicyOut, 422: ErrorResponse } },
      handler: async ({ ctx, body }) => evaluation.putPolicy(ctx, body as Partial<AlertPolicy>),
    }),
    op({
      operationId: 'resetEmsAlertPolicy',
      method: 'DELETE',
      path: '/api/hardware/ems/alerts/policy',
      summary: 'Reset the EMS alert policy to the defaults',
      description: 'Removes the stored policy; the defaults apply from the next evaluation. Answers the defaults. Audited.',
      tags: emsTags,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: PolicyOut } },
      handler: async ({ ctx }) => evaluation.resetPolicy(ctx),
    }),

    // ---- routing (module ems/routing)
    op({
      operationId: 'listRoutingRules',
      method: 'GET',
      path: '/api/hardware/ems/routing/rules',
      summary: 'Routing rules, oldest first',
      description: 'Channel secrets (webhook secrets, team-chat URLs) are never shown.',
      access: BEARER.read,
      module: 'ems/routing',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ rules: Type.Array(Rule) }) } },
      handler: async ({ ctx }) => routing.listRules(ctx),
    }),
    op({
      operationId: 'createRoutingRule',
      method: 'POST',
      path: '/api/hardware/ems/routing/rules',
      summary: 'Create a routing rule',
      description:
        'Matches on severities, sources, site ids and minimum impact; names channels (email, team_chat, webhook, user) and optionally escalation ' +
        'channels used when an alert stays unacknowledged `after_minutes` after it was raised. Addresses are checked by the outbound address policy. ' +
        'A webhook channel needs `secret` (`whsec_` + base64 of at least 24 random bytes), write-only.',
      module: 'ems/routing',
      schema: { body: RuleBody, response: { 201: Rule, 409: ErrorResponse, 422: ErrorResponse } },
      handler: async ({ ctx, body }) => routing.createRule(ctx, body),
    }),
    op({
      operationId: 'updateRoutingRule',
      method: 'PUT',
      path: '/api/hardware/ems/routing/rules/{rule_id}',
      summary: 'Replace a routing rule',
      description:
        'The whole rule. A webhook channel with `secret` rotates it; without, the stored secret of the same URL is kept. Team-chat URLs are sent again in full.',
      module: 'ems/routing',
      schema: {
        params: Type.Object({ rule_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: RuleBody,
        response: { 200: Rule, 404: ErrorResponse, 422: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => routing.updateRule(ctx, params.rule_id, body),
    }),
    op({
      operationId: 'deleteRoutingRule',
      method: 'DELETE',
      path: '/api/hardware/ems/routing/rules/{rule_id}',
      summary: 'Delete a routing rule',
      description: 'Its delivery log entries are kept.',
      module: 'ems/routing',
      schema: { params: Type.Object({ rule_id: Type.String({ minLength: 1, maxLength: 100 }) }), response: { 204: Type.Null(), 404: ErrorResponse } },
      handler: async ({ ctx, params }) => {
        await routing.deleteRule(ctx, params.rule_id);
      },
    }),
    op({
      operationId: 'listRoutingChannels',
      method: 'GET',
      path: '/api/hardware/ems/routing/channels',
      summary: 'Channel types, the email server status and the channels the rules name',
      description:
        'The channel types (email, team_chat, webhook, user), whether the email server is configured, the webhook delivery terms, and every channel the rules name with the rules naming it. Secrets are never shown.',
      access: BEARER.read,
      module: 'ems/routing',
      dataBasis: { basis: 'configured' },
      schema: {
        response: {
          200: Type.Object({
            types: Type.Array(Type.Object({ type: Type.String(), description: Type.String(), fields: Type.Array(Type.String()), available: Type.Boolean() })),
            email: Type.Object({ configured: Type.Boolean(), from: Type.Union([Type.String(), Type.Null()]) }),
            webhook: Type.Object({
              attempts: Type.Integer(),
              timeout_seconds: Type.Number(),
              retry: Type.Boolean(),
              signature_header: Type.String(),
              event_type: Type.String(),
            }),
            channels: Type.Array(
              Type.Object({
                type: Type.String(),
                channel_key: Type.String(),
                to: Type.Optional(Type.String()),
                format: Type.Optional(Type.String()),
                url_hint: Type.Optional(Type.String()),
                url: Type.Optional(Type.String()),
                secret_set: Type.Optional(Type.Boolean()),
                user_id: Type.Optional(Type.String()),
                rule_ids: Type.Array(Type.String()),
                escalation_rule_ids: Type.Array(Type.String()),
              }),
            ),
          }),
        },
      },
      handler: async ({ ctx }) => routing.listChannels(ctx),
    }),
    op({
      operationId: 'dispatchEmsAlerts',
      method: 'POST',
      path: '/api/hardware/ems/routing/dispatch',
      summary: 'Route every open EMS alert through the routing rules',
      description:
        'Each matching channel once per alert: a channel the alert already reached (by evaluate or an earlier dispatch, on any instance) is skipped ' +
        'and counted in `already_delivered`. Webhooks: one attempt, 10 s, no retry; non-2xx or no answer is `failed`. Deliveries are started for ' +
        'ROUTING_CALL_BUDGET_MS (30 s) and no longer; those not started are counted in `deferred` and sent by the next dispatch.',
      module: 'ems/routing',
      schema: { response: { 200: RoutingResult } },
      handler: async ({ ctx }) => routing.route(ctx, await evaluation.openAlerts(db, ctx.orgId), 'dispatch'),
    }),
    op({
      operationId: 'checkEmsAlertEscalations',
      method: 'POST',
      path: '/api/hardware/ems/routing/escalations/check',
      summary: "Escalate open, unacknowledged EMS alerts past each rule's delay",
      description: 'To the escalation channels of each matching rule whose `after_minutes` since the alert was raised have passed; once per channel and alert.',
      module: 'ems/routing',
      schema: { response: { 200: Type.Object({ checked_at: Timestamp, ...RoutingResult.properties }) } },
      handler: async ({ ctx }) => routing.escalate(ctx, await evaluation.openAlerts(db, ctx.orgId)),
    }),
    op({
      operationId: 'listRoutedDeliveries',
      method: 'GET',
      path: '/api/hardware/ems/routing/deliveries',
      summary: 'The routed-delivery log, newest first',
      description: "Every attempt with its outcome (`delivered`, `failed`, `suppressed`), timing and the answer's status.",
      access: BEARER.read,
      module: 'ems/routing',
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object({
          limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
          cursor: Type.Optional(CursorParam),
          alert_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          rule_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          outcome: Type.Optional(Type.Union(['sending', 'delivered', 'failed', 'suppressed'].map((o) => Type.Literal(o)))),
        }),
        response: { 200: Page('deliveries', Delivery), 400: ErrorResponse },
      },
      handler: async ({ ctx, query }) => routing.listDeliveries(ctx, query),
    }),

    // ---- alert admin
    op({
      operationId: 'listAlertsHistory',
      method: 'GET',
      path: '/api/hardware/admin/alerts-history',
      summary: "Every organisation's alerts (platform staff only)",
      description: 'Newest first, cursor pages; filters organisation_id, status, source, since. Organisation tokens without platform staff get 403.',
      tags: adminTags,
      access: BEARER.read,
      audience: 'platform-staff',
      dataBasis: { basis: 'stored' },
      schema: {
        query: Type.Object({
          limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
          cursor: Type.Optional(CursorParam),
          organisation_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('resolved')])),
          source: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
          since: Type.Optional(Type.String({ format: 'date-time' })),
        }),
        response: { 200: Page('alerts', StaffAlert), 400: ErrorResponse, 403: ErrorResponse },
      },
      handler: async ({ ctx, query }) => admin.list(ctx, query),
    }),
    op({
      operationId: 'acknowledgeAlert',
      method: 'POST',
      path: '/api/hardware/admin/alerts-history/{alert_id}/acknowledge',
      summary: 'Acknowledge an open alert of the organisation',
      description: 'Stamps who and when (the first acknowledgement stands); stops escalation. Audited.',
      tags: adminTags,
      schema: {
        params: AlertIdParams,
        body: Type.Union([Type.Object({ note: Type.Optional(Note) }, { additionalProperties: false }), Type.Null()], {
          description: 'Optional: `{note}`, or no body',
        }),
        response: { 200: AdminAlert, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => admin.acknowledge(ctx, params.alert_id, body ?? {}),
    }),
    op({
      operationId: 'assignAlert',
      method: 'POST',
      path: '/api/hardware/admin/alerts-history/{alert_id}/assign',
      summary: 'Give an open alert an owner',
      description: 'The owner must be a member of the organisation; they get an `alert_assigned` notification. Audited.',
      tags: adminTags,
      schema: {
        params: AlertIdParams,
        body: Type.Object({ user_id: Type.String({ minLength: 1, maxLength: 128 }), note: Type.Optional(Note) }, { additionalProperties: false }),
        response: { 200: AdminAlert, 404: ErrorResponse, 409: ErrorResponse, 422: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => admin.assign(ctx, params.alert_id, body),
    }),
    op({
      operationId: 'resolveAlert',
      method: 'POST',
      path: '/api/hardware/admin/alerts-history/{alert_id}/resolve',
      summary: 'Resolve an open alert, saying why',
      description: 'Records who and why; publishes `alert.resolved`. An EMS alert whose condition still holds is raised again by the next evaluation. Audited.',
      tags: adminTags,
      schema: {
        params: AlertIdParams,
        body: Type.Object({ reason: Note }, { additionalProperties: false }),
        response: { 200: AdminAlert, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => admin.resolve(ctx, params.alert_id, body),
    }),
    op({
      operationId: 'commentOnAlert',
      method: 'POST',
      path: '/api/hardware/admin/alerts-history/{alert_id}/comment',
      summary: "Add a comment to an alert's history",
      description: 'Open or resolved alerts. Stamped who and when. Audited.',
      tags: adminTags,
      access: BEARER.ingest,
      schema: { params: AlertIdParams, body: Type.Object({ text: Note }, { additionalProperties: false }), response: { 201: AdminAlert, 404: ErrorResponse } },
      handler: async ({ ctx, params, body }) => admin.comment(ctx, params.alert_id, body),
    }),
    op({
      operationId: 'getAlertStats',
      method: 'GET',
      path: '/api/hardware/admin/alerts-history/stats',
      summary: "The organisation's alert figures: open by severity, acknowledged, response times",
      description:
        "Scoped to the caller's organisation: open alerts by severity, acknowledged, unacknowledged and unassigned; alerts raised and resolved in the window; mean minutes to first acknowledgement and to resolution.",
      tags: adminTags,
      access: BEARER.read,
      dataBasis: {
        basis: 'calculated',
        method:
          "Counts of the organisation's alerts (every open one, and those raised in the window) and the mean minutes from raise to first acknowledgement and to resolution.",
      },
      schema: {
        query: Type.Object({ days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, description: 'Window in days, default 30' })) }),
        response: {
          200: Type.Object({
            window: Type.Object({ from: Timestamp, to: Timestamp, days: Type.Integer() }),
            open: Type.Object({
              total: Type.Integer(),
              by_severity: Type.Object({ info: Type.Integer(), warning: Type.Integer(), critical: Type.Integer() }),
              acknowledged: Type.Integer(),
              unacknowledged: Type.Integer(),
              unassigned: Type.Integer(),
            }),
            raised_in_window: Type.Integer(),
            resolved_in_window: Type.Integer(),
            mean_minutes_to_acknowledge: Type.Union([Type.Number(), Type.Null()]),
            mean_minutes_to_resolve: Type.Union([Type.Number(), Type.Null()]),
          }),
        },
      },
      handler: async ({ ctx, query }) => admin.stats(ctx, query),
    }),
  ];
}
