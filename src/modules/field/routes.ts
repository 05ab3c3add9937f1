// Field operations (endpoints.md 4.5, module `field`), base /api/hardware/field.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { CursorParam, LimitParam, Page, Timestamp, ErrorResponse } from '../../platform/schema-kit.ts';
import { BANK_HOLIDAYS, CALENDAR_YEARS } from './calendar.ts';
import type { Field } from './service.ts';
import {
  AttachmentBody,
  Attachment,
  CreateBody,
  FieldAlert,
  FieldAsset,
  KindName,
  Note,
  PriorityName,
  PriorityParams,
  RiskName,
  SlaPolicy,
  SlaPolicyBody,
  SlaReport,
  StatusName,
  TransitionBody,
  WorkOrder,
  WorkOrderId,
  WorkOrderSummary,
} from './schemas.ts';
import {
  DEFAULT_POLICIES,
  KIND_DESCRIPTIONS,
  KINDS,
  PRIORITY_DESCRIPTIONS,
  PRIORITIES,
  STATUS_DESCRIPTIONS,
  STATUSES,
  TRANSITIONS,
  OPEN_STATUSES,
} from './vocabulary.ts';

const BASE = '/api/hardware/field';
const tags = ['field'];
const access = {
  read: BEARER.read,
  work: BEARER.ingest,
  configure: BEARER.configure,
};
const SLA_METHOD =
  "Each work order's response clock runs from creation to its first move to in_progress, its resolution clock to completed, in the policy's measure " +
  '(calendar hours: elapsed time; business hours: the business day, UK local time, Monday to Friday except England and Wales bank holidays); both pause ' +
  'while on_hold when the policy says so. A clock is breached once its elapsed time reaches the target, at risk once it reaches at_risk_percent of it.';

export function fieldOperations(field: Field) {
  // Every field operation: tag field, live, module field (403 `Module not enabled: field` without it).
  const op = withDefaults({ tags, status: 'live', module: 'field' });
  return [
    op({
      operationId: 'getFieldVocabulary',
      method: 'GET',
      path: `${BASE}/vocabulary`,
      summary: 'Work-order statuses, allowed transitions, priorities, kinds and the SLA calendar',
      description: 'The state machine as served: a move not listed here is refused with 409 naming the allowed ones.',
      access: access.read,
      dataBasis: { basis: 'configured' },
      schema: {
        response: {
          200: Type.Object({
            statuses: Type.Array(Type.Object({ name: StatusName, open: Type.Boolean(), description: Type.String() })),
            transitions: Type.Array(
              Type.Object({
                from: StatusName,
                to: StatusName,
                via: Type.String({ description: 'assign or transition: the operation making the move' }),
                description: Type.String(),
              }),
            ),
            priorities: Type.Array(Type.Object({ name: PriorityName, description: Type.String() })),
            kinds: Type.Array(Type.Object({ name: KindName, description: Type.String() })),
            sla_risks: Type.Array(RiskName),
            calendar: Type.Object({
              time_zone: Type.String(),
              working_days: Type.String(),
              bank_holidays: Type.Object({
                region: Type.String(),
                years: Type.Object({ from: Type.Integer(), to: Type.Integer() }),
                dates: Type.Array(Type.String({ format: 'date' })),
              }),
              outside_years: Type.String(),
            }),
          }),
        },
      },
      handler: async () => ({
        statuses: STATUSES.map((s) => ({
          name: s,
          open: OPEN_STATUSES.includes(s),
          description: STATUS_DESCRIPTIONS[s],
        })),
        transitions: TRANSITIONS,
        priorities: PRIORITIES.map((p) => ({ name: p, description: PRIORITY_DESCRIPTIONS[p] })),
        kinds: KINDS.map((k) => ({ name: k, description: KIND_DESCRIPTIONS[k] })),
        sla_risks: ['ok', 'at_risk', 'breached'],
        calendar: {
          time_zone: 'Europe/London',
          working_days: 'Monday to Friday, except bank holidays; the business day of each policy in UK local time (BST in summer, GMT in winter)',
          bank_holidays: { region: 'England and Wales', years: { ...CALENDAR_YEARS }, dates: Object.values(BANK_HOLIDAYS).flat() },
          outside_years: 'Outside these years only weekends are excluded',
        },
      }),
    }),
    op({
      operationId: 'listFieldAssets',
      method: 'GET',
      path: `${BASE}/assets`,
      summary: 'Assets field staff can act on, with feed freshness and open work orders',
      description: 'The registered assets, by site then asset id. `feed_stale` marks those from-stale-feed accepts.',
      access: access.read,
      dataBasis: { basis: 'measured', method: 'Freshness is the age of the newest stored record at the time of the request (registry bands).' },
      schema: {
        query: Type.Object({
          site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          stale_only: Type.Optional(Type.Boolean({ description: 'Only assets whose feed is stale' })),
        }),
        response: { 200: Type.Object({ as_of: Timestamp, assets: Type.Array(FieldAsset) }) },
      },
      handler: async ({ ctx, query }) => field.assets(ctx, query),
    }),
    op({
      operationId: 'listFieldAlerts',
      method: 'GET',
      path: `${BASE}/alerts`,
      summary: "The organisation's open alerts, each with the work order opened from it",
      description: 'Newest first. from-alert opens one work order per alert; `site_id` and `asset_id` are those the alert names (details, else its subject).',
      access: access.read,
      schema: {
        query: Type.Object({ without_work_order: Type.Optional(Type.Boolean({ description: 'Only alerts no work order was opened from' })) }),
        response: { 200: Type.Object({ alerts: Type.Array(FieldAlert) }) },
      },
      handler: async ({ ctx, query }) => field.openAlerts(ctx, query),
    }),
    op({
      operationId: 'listFieldSlaPolicies',
      method: 'GET',
      path: `${BASE}/sla-policies`,
      summary: 'The SLA policy of each priority',
      description: `The organisation's own where set, else the default. Defaults: ${Object.values(DEFAULT_POLICIES)
        .map((p) => `${p.priority} ${p.response_minutes}/${p.resolution_minutes} min ${p.measure}${p.pause_on_hold ? ', pauses on hold' : ''}`)
        .join('; ')}.`,
      access: access.read,
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ policies: Type.Array(SlaPolicy) }) } },
      handler: async ({ ctx }) => field.listPolicies(ctx),
    }),
    op({
      operationId: 'putFieldSlaPolicy',
      method: 'PUT',
      path: `${BASE}/sla-policies/{priority}`,
      summary: "Set a priority's SLA policy",
      description:
        'Applies to work orders created, or moved to this priority, afterwards: each work order keeps the policy it took (decision 0161). ' +
        'response_minutes may not exceed resolution_minutes; the business day starts at 02:00 or later and lasts at least an hour.',
      access: access.configure,
      schema: { params: PriorityParams, body: SlaPolicyBody, response: { 200: SlaPolicy, 422: ErrorResponse } },
      handler: async ({ ctx, params, body }) => field.putPolicy(ctx, params.priority, body),
    }),
    op({
      operationId: 'resetFieldSlaPolicy',
      method: 'DELETE',
      path: `${BASE}/sla-policies/{priority}`,
      summary: "Restore a priority's default SLA policy",
      description: 'Answers the default now in force (also when none was set).',
      access: access.configure,
      schema: { params: PriorityParams, response: { 200: SlaPolicy } },
      handler: async ({ ctx, params }) => field.resetPolicy(ctx, params.priority),
    }),
    op({
      operationId: 'listWorkOrders',
      method: 'GET',
      path: `${BASE}/work-orders`,
      summary: 'The dispatch list: work orders, newest first, with filters',
      description:
        "Filters: status, priority, site_id, assignee_id ('none' for unassigned), sla_risk (at the time of the request). Cursor paging; a cursor works only with the filters it was made with.",
      access: access.read,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        query: Type.Object({
          status: Type.Optional(StatusName),
          priority: Type.Optional(PriorityName),
          site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
          assignee_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "A member id, or 'none'" })),
          sla_risk: Type.Optional(RiskName),
          limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
          cursor: Type.Optional(CursorParam),
        }),
        response: { 200: Page('work_orders', WorkOrderSummary), 400: ErrorResponse },
      },
      handler: async ({ ctx, query }) => field.list(ctx, query),
    }),
    op({
      operationId: 'createWorkOrder',
      method: 'POST',
      path: `${BASE}/work-orders`,
      summary: 'Raise a work order',
      description: "Status new, unassigned; both SLA clocks start now under the priority's policy.",
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: { body: CreateBody, response: { 201: WorkOrder, 422: ErrorResponse } },
      handler: async ({ ctx, body }) => field.create(ctx, body),
    }),
    op({
      operationId: 'listDueWorkOrders',
      method: 'GET',
      path: `${BASE}/work-orders/due`,
      summary: 'What breaches next: open work orders with a running clock, soonest deadline first',
      description: 'Each with `next_due`: the clock whose deadline comes first and the seconds left. Already breached and paused clocks are left out.',
      access: access.read,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        query: Type.Object({ limit: Type.Optional(LimitParam({ default: 50, max: 200 })) }),
        response: {
          200: Type.Object({
            as_of: Timestamp,
            work_orders: Type.Array(
              Type.Object({
                ...WorkOrderSummary.properties,
                next_due: Type.Object({ clock: Type.String({ description: 'response or resolution' }), due_at: Timestamp, seconds_left: Type.Integer() }),
              }),
            ),
          }),
        },
      },
      handler: async ({ ctx, query }) => field.due(ctx, query),
    }),
    op({
      operationId: 'getFieldSlaReport',
      method: 'GET',
      path: `${BASE}/reports/sla`,
      summary: 'SLA report: met, breached and at-risk counts and shares by priority, site and assignee, with median times',
      description: 'Work orders created in [from, to) (default: the 30 days to now; at most 366 days), cancelled ones left out, judged now.',
      access: access.read,
      dataBasis: { basis: 'calculated', method: SLA_METHOD + ' Medians are wall-clock minutes from creation.' },
      schema: {
        query: Type.Object({
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Start (inclusive), ISO 8601' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'End (exclusive), ISO 8601; default now' })),
        }),
        response: { 200: SlaReport, 422: ErrorResponse },
      },
      handler: async ({ ctx, query }) => field.report(ctx, query),
    }),
    op({
      operationId: 'createWorkOrderFromAlert',
      method: 'POST',
      path: `${BASE}/work-orders/from-alert/{alert_id}`,
      summary: 'Open a work order from an organisation alert (one per alert)',
      description:
        "Corrective work at the alert's site and asset, priority from severity (critical → critical, warning → high, info → medium). 201 when opened; " +
        '200 with the existing work order when one was opened from this alert before. 404 for an unknown alert, 409 for a resolved one without a work order.',
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        params: Type.Object({ alert_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: WorkOrder, 201: WorkOrder, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, reply }) => {
        const r = await field.fromAlert(ctx, params.alert_id);
        if (r.created) reply.code(201);
        return r.work_order;
      },
    }),
    op({
      operationId: 'createWorkOrderFromStaleFeed',
      method: 'POST',
      path: `${BASE}/work-orders/from-stale-feed/{device_id}`,
      summary: "Open a work order to restore a device's stale data feed",
      description:
        'A feed is stale when its newest record is an hour old or more, or there is none (registry freshness stale, silent or never). Communications work, ' +
        'priority high when silent (a day or more), else medium. 201 when opened; 200 with the open one when the feed already has one; 409 when the feed is fresh.',
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        params: Type.Object({ device_id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: WorkOrder, 201: WorkOrder, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, reply }) => {
        const r = await field.fromStaleFeed(ctx, params.device_id);
        if (r.created) reply.code(201);
        return r.work_order;
      },
    }),
    op({
      operationId: 'getWorkOrder',
      method: 'GET',
      path: `${BASE}/work-orders/{work_order_id}`,
      summary: 'One work order with its SLA clocks, full history, notes and attachments',
      description: 'Clock figures are at the time of the request; `sla.clocks_computed_at` is when the stored clocks were last computed.',
      access: access.read,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: { params: WorkOrderId, response: { 200: WorkOrder, 404: ErrorResponse } },
      handler: async ({ ctx, params }) => field.get(ctx, params.work_order_id),
    }),
    op({
      operationId: 'assignWorkOrder',
      method: 'POST',
      path: `${BASE}/work-orders/{work_order_id}/assign`,
      summary: 'Assign (or reassign) an open work order to a member of the organisation',
      description: 'A new work order moves to assigned. The member is told (notification kind work_order_assigned). 422 when the user is not a member.',
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        params: WorkOrderId,
        body: Type.Object(
          { user_id: Type.String({ minLength: 1, maxLength: 128, description: 'A member of the organisation' }) },
          { additionalProperties: false },
        ),
        response: { 200: WorkOrder, 404: ErrorResponse, 409: ErrorResponse, 422: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => field.assign(ctx, params.work_order_id, body.user_id),
    }),
    op({
      operationId: 'transitionWorkOrder',
      method: 'POST',
      path: `${BASE}/work-orders/{work_order_id}/transition`,
      summary: 'Move a work order to another status',
      description: 'Only the moves of the vocabulary; any other is 409 naming the allowed ones. The SLA clocks are recomputed.',
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: { params: WorkOrderId, body: TransitionBody, response: { 200: WorkOrder, 404: ErrorResponse, 409: ErrorResponse, 422: ErrorResponse } },
      handler: async ({ ctx, params, body }) => field.transition(ctx, params.work_order_id, body),
    }),
    op({
      operationId: 'changeWorkOrderPriority',
      method: 'POST',
      path: `${BASE}/work-orders/{work_order_id}/priority`,
      summary: 'Change the priority of an open work order',
      description:
        "The work order takes the new priority's policy and both clocks are recomputed from creation; the history records the change with the old and new due times. The same priority changes nothing.",
      access: access.work,
      dataBasis: { basis: 'calculated', method: SLA_METHOD },
      schema: {
        params: WorkOrderId,
        body: Type.Object({ priority: PriorityName, reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })) }, { additionalProperties: false }),
        response: { 200: WorkOrder, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => field.changePriority(ctx, params.work_order_id, body),
    }),
    op({
      operationId: 'addWorkOrderNote',
      method: 'POST',
      path: `${BASE}/work-orders/{work_order_id}/notes`,
      summary: 'Add a note',
      description: 'Notes are kept in order in the history; any status.',
      access: access.work,
      schema: {
        params: WorkOrderId,
        body: Type.Object({ text: Type.String({ minLength: 1, maxLength: 4000 }) }, { additionalProperties: false }),
        response: { 201: Note, 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => field.addNote(ctx, params.work_order_id, body.text),
    }),
    op({
      operationId: 'addWorkOrderAttachment',
      method: 'POST',
      path: `${BASE}/work-orders/{work_order_id}/attachments`,
      summary: "Record an attachment's metadata (no file is stored)",
      description: 'Name, media type, size, SHA-256 and an external reference to where the file is kept; the reference is never fetched.',
      access: access.work,
      schema: { params: WorkOrderId, body: AttachmentBody, response: { 201: Attachment, 404: ErrorResponse, 409: ErrorResponse } },
      handler: async ({ ctx, params, body }) => field.addAttachment(ctx, params.work_order_id, body),
    }),
  ];
}
