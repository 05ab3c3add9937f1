// Platform status and incidents: /api/hardware/platform (decision 0224).
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { Nullable, Timestamp } from '../../platform/schema-kit.ts';
import { csvRecord } from '../../kit/csv.ts';
import { IMPACTS, STATES, type StatusService } from './service.ts';

const BASE = '/api/hardware/platform';
const tags = ['platform-status'];

const StateS = Type.Union(
  STATES.map((s) => Type.Literal(s)),
  { description: 'Incident state, in order: investigating → identified → monitoring → resolved (final)' },
);
const ImpactS = Type.Union(
  IMPACTS.map((s) => Type.Literal(s)),
  { description: '`minor` (some requests slow or failing), `major` (a component largely unavailable), `critical` (the platform unavailable)' },
);
const Health = Type.Union([Type.Literal('operational'), Type.Literal('degraded'), Type.Literal('unobserved')], {
  description: '`operational` (newest check passed), `degraded` (newest check failed), `unobserved` (no check in the last 5 minutes)',
});
const Window = Type.Object({
  percent: Nullable(Type.Number({ description: 'Share of recorded checks that passed; null when the window holds no check' })),
  checks: Type.Integer({ description: 'Checks recorded in the window' }),
  failed: Type.Integer({ description: 'Checks that failed' }),
});
const Update = Type.Object({
  id: Type.String({ description: 'Update id' }),
  state: StateS,
  impact: ImpactS,
  message: Type.String({ description: 'What the platform team said' }),
  created_at: Timestamp,
});
const Incident = Type.Object(
  {
    id: Type.String({ description: 'Incident id (inc_…)' }),
    title: Type.String({ description: 'Short title' }),
    impact: ImpactS,
    affected_components: Type.Array(Type.String(), { description: 'Names of the affected components (as in GET /api/hardware/platform/status)' }),
    state: StateS,
    started_at: Timestamp,
    resolved_at: Nullable(Timestamp, 'When it was resolved; null while open'),
    updated_at: Timestamp,
    updates: Type.Array(Update, { description: 'Updates, newest first; the first posted is the opening message' }),
  },
  { description: 'A platform incident' },
);
const IncidentId = Type.Object({ incident_id: Type.String({ minLength: 1, maxLength: 64, description: 'Incident id' }) });
const ListQuery = Type.Object(
  {
    state: Type.Optional(
      Type.Union([Type.Literal('open'), Type.Literal('resolved'), Type.Literal('all')], {
        description: '`open` (not resolved), `resolved` or `all` (default)',
      }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'At most this many, newest first; 1 to 200, default 50' })),
  },
  { additionalProperties: false },
);
const Message = Type.String({ minLength: 1, maxLength: 4000, description: 'The message shown with this update' });
const CreateBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Short title' }),
    impact: ImpactS,
    affected_components: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
      minItems: 1,
      maxItems: 20,
      uniqueItems: true,
      description: 'Names of the affected components, from GET /api/hardware/platform/status',
    }),
    message: Message,
  },
  { additionalProperties: false },
);
const UpdateBody = Type.Object({ state: StateS, message: Message, impact: Type.Optional(ImpactS) }, { additionalProperties: false });
const CSV_COLUMNS = ['id', 'title', 'impact', 'state', 'affected_components', 'started_at', 'resolved_at', 'updated_at', 'updates', 'latest_message'] as const;
const ADMIN_NOTE =
  'Platform administrators only (a platform staff token with platform administration); members of organisations read incidents but never write them.';

const op = withDefaults({ tags, status: 'live', access: BEARER.anyRole });

export function statusOperations(svc: StatusService) {
  return [
    op({
      operationId: 'getPlatformStatus',
      method: 'GET',
      path: `${BASE}/status`,
      summary: 'Platform components: health now, observed availability and open incidents',
      description:
        'Every component the scheduled health checks cover (one check a minute each): the state now and the availability ' +
        'observed over 24 hours, 7 days and 30 days, counted only from the recorded checks, with the ids of the open incidents ' +
        'that affect it; and the open incidents in full. Any member of any organisation may read it.',
      dataBasis: {
        basis: 'measured',
        method:
          'Share of the recorded scheduled health checks (one a minute per component) that passed in each window; incidents as the platform team posted them.',
      },
      schema: {
        response: {
          200: Type.Object({
            status: Health,
            generated_at: Timestamp,
            check_interval_seconds: Type.Integer({ description: 'Seconds between health checks' }),
            components: Type.Array(
              Type.Object({
                name: Type.String({ description: 'Component name' }),
                description: Type.String(),
                state: Health,
                last_checked_at: Nullable(Timestamp),
                availability: Type.Object({ last_24h: Window, last_7d: Window, last_30d: Window }),
                open_incidents: Type.Array(Type.String(), { description: 'Ids of the open incidents affecting this component' }),
              }),
            ),
            open_incidents: Type.Array(Incident, { description: 'Incidents not yet resolved, newest first' }),
          }),
        },
      },
      handler: async () => svc.status(),
    }),
    op({
      operationId: 'listPlatformIncidents',
      method: 'GET',
      path: `${BASE}/incidents`,
      summary: 'Platform incidents, newest first',
      description: 'Platform-wide incidents with their updates, newest first. Any member of any organisation may read them.',
      dataBasis: { basis: 'stored' },
      schema: { query: ListQuery, response: { 200: Type.Object({ incidents: Type.Array(Incident) }) } },
      handler: async ({ query }) => ({ incidents: await svc.list(query.state ?? 'all', query.limit ?? 50) }),
    }),
    op({
      operationId: 'createPlatformIncident',
      method: 'POST',
      path: `${BASE}/incidents`,
      summary: 'Open a platform incident',
      description: `${ADMIN_NOTE} The incident opens as \`investigating\` with the message as its first update. 422 for a component not in the status list.`,
      audience: 'platform-staff',
      platformAdmin: true,
      schema: { body: CreateBody, response: { 201: Incident } },
      handler: async ({ body, ctx }) => svc.create(ctx, body),
    }),
    op({
      operationId: 'addPlatformIncidentUpdate',
      method: 'POST',
      path: `${BASE}/incidents/{incident_id}/updates`,
      summary: 'Post an update on a platform incident',
      description:
        `${ADMIN_NOTE} States move only forward: investigating → identified → monitoring → resolved (skipping is allowed; ` +
        'an update may keep the current state). 409 naming the allowed states for any other move; resolved is final. ' +
        '`impact` changes the incident’s impact when given. 404 for an unknown incident. 201 with the incident.',
      audience: 'platform-staff',
      platformAdmin: true,
      schema: { params: IncidentId, body: UpdateBody, response: { 201: Incident } },
      handler: async ({ params, body, ctx }) => svc.addUpdate(ctx, params.incident_id, body),
    }),
    op({
      operationId: 'exportPlatformIncidentsCsv',
      method: 'GET',
      path: `${BASE}/incidents/export.csv`,
      summary: 'Platform incidents as CSV',
      description:
        '`text/csv` (RFC 4180, CRLF line ends, header row), one row per incident, newest first, with the list’s filters. ' +
        '`affected_components` joined with `;`, `updates` the count, `latest_message` the newest update. Text a spreadsheet ' +
        'would run as a formula is prefixed with an apostrophe. Any member of any organisation may read it.',
      dataBasis: { basis: 'stored' },
      produces: 'text/csv',
      schema: { query: ListQuery, response: { 200: Type.String({ description: 'CSV text with a header row' }) } },
      handler: async ({ query, reply }) => {
        const incidents = await svc.list(query.state ?? 'all', query.limit ?? 200);
        function* rows() {
          yield csvRecord([...CSV_COLUMNS]);
          for (const i of incidents) {
            yield csvRecord([
              i.id,
              i.title,
              i.impact,
              i.state,
              i.affected_components.join(';'),
              i.started_at,
              i.resolved_at,
              i.updated_at,
              i.updates.length,
              i.updates[0]?.message ?? '',
            ]);
          }
        }
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', 'attachment; filename="platform-incidents.csv"');
        return Readable.from(rows());
      },
    }),
  ];
}
