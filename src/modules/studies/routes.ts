// Plan studies (endpoints.md 4.6, base /api/notifications/studies).
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { type ResourceHead, resourceOps } from '../../platform/resource.ts';
import { CursorParam, JobProgressSchema, LimitParam, LiteralUnion, Nullable, Page, Timestamp, ErrorResponse } from '../../platform/schema-kit.ts';
import { KINDS, STUDY_TYPE_NAMES, type Kind, type StudyType } from './catalogue.ts';
import type { Studies } from './service.ts';

const B = '/api/notifications/studies';
const tags = ['studies'];
const StudyTypeName = LiteralUnion(STUDY_TYPE_NAMES, { description: 'Study type' });
const KindName = Type.Union(
  KINDS.map((k) => Type.Literal(k)),
  { description: 'Input kind' },
);
const Id = Type.String({ minLength: 1, maxLength: 64, description: 'Id' });
const MODEL_METHOD =
  "Plain arithmetic on the study's recorded input versions: unit rates by half-hour period from the tariff, energies from the load or vehicles CSV, settings from site_constraints; every assumption is listed in the results (docs/studies.md).";

const Study = Type.Object({
  study_id: Type.String(),
  study_type: StudyTypeName,
  name: Type.String(),
  description: Nullable(Type.String()),
  required_inputs: Type.Array(KindName, { description: 'Inputs a run needs' }),
  inputs: Type.Array(Type.Object({ kind: KindName, version: Type.Integer(), row_count: Type.Integer(), updated_at: Timestamp }), {
    description: 'Current input versions',
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});
const Input = Type.Object({
  kind: KindName,
  version: Type.Integer({ description: 'Version, 1 for the first PUT, one more for each' }),
  row_count: Type.Integer(),
  rows: Type.Array(Type.Record(Type.String(), Type.String()), { description: 'The parsed rows, by column name' }),
  csv: Type.String({ description: 'The CSV as sent' }),
  updated_at: Timestamp,
});
const Results = Type.Object(
  {
    label: Type.Literal('MODELLED'),
    display_label: Type.String({ description: '`Projection` for forward figures; `Calculated from your charging data` for the depot savings audit' }),
    study_type: StudyTypeName,
    figures: Type.Array(
      Type.Object({
        key: Type.String(),
        label: Type.String(),
        value: Type.String({ description: 'Decimal text (money in pounds, 2 places) or text' }),
        unit: Type.String(),
      }),
    ),
    chart: Type.Object({ title: Type.String(), unit: Type.String(), bars: Type.Array(Type.Object({ label: Type.String(), value: Type.Number() })) }),
    assumptions: Type.Array(Type.String()),
  },
  { description: 'The plan study result (concepts.md section 2)' },
);
const Run = Type.Object({
  run_id: Type.String(),
  study_id: Type.String(),
  status: Type.Union([Type.Literal('queued'), Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  progress: JobProgressSchema('percent', 'always 100: a run reports its steps as per cent (10 started, up to 70 as inputs are read, 100 succeeded)'),
  input_versions: Type.Record(Type.String(), Type.Integer(), { description: 'The input versions the run reads: a run is reproducible' }),
  attempts: Type.Integer({ description: 'Times the queue has started it' }),
  error: Nullable(Type.String()),
  results: Nullable(Results),
  created_at: Timestamp,
  started_at: Nullable(Timestamp),
  finished_at: Nullable(Timestamp),
});
const StudyParams = Type.Object({ study_id: Id });
const RunParams = Type.Object({ study_id: Id, run_id: Id });
const InputParams = Type.Object({ study_id: Id, kind: KindName });
const TypeKindParams = Type.Object({ study_type: StudyTypeName, kind: KindName });

const STUDIES: ResourceHead = { name: 'Study', plural: 'Studies', path: B, id: 'study_id', params: StudyParams, item: Study };
const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function studyOperations(s: Studies) {
  return [
    op({
      operationId: 'listStudyTypes',
      method: 'GET',
      path: `${B}/types`,
      summary: 'Study types and the inputs each takes',
      description: 'The four study types, the input kinds each takes (with their CSV columns) and the display_label their results carry.',
      schema: {
        response: {
          200: Type.Object({
            study_types: Type.Array(
              Type.Object({
                study_type: StudyTypeName,
                title: Type.String(),
                description: Type.String(),
                display_label: Type.String(),
                inputs: Type.Array(
                  Type.Object({
                    kind: KindName,
                    description: Type.String(),
                    columns: Type.Array(Type.Object({ name: Type.String(), description: Type.String() })),
                  }),
                ),
              }),
            ),
          }),
        },
      },
      handler: async () => s.types(),
    }),
    op({
      operationId: 'getStudyTemplate',
      method: 'GET',
      path: `${B}/templates/{study_type}/{kind}`,
      summary: 'An empty CSV template (header row) for an input',
      description: "The header row of the input kind's CSV, to fill in and PUT to a study. 422 on path.kind when the study type does not take the kind.",
      produces: 'text/csv',
      schema: { params: TypeKindParams, response: { 200: Type.String({ description: 'CSV text: the header row' }), 422: ErrorResponse } },
      handler: async ({ params, reply }) => {
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="${params.kind}.csv"`);
        return s.template(params.study_type as StudyType, params.kind as Kind, false);
      },
    }),
    op({
      operationId: 'getStudySample',
      method: 'GET',
      path: `${B}/samples/{study_type}/{kind}`,
      summary: 'A filled-in sample CSV for an input',
      description: 'A filled-in CSV of the input kind for the study type; docs/studies.md works the samples through by hand.',
      produces: 'text/csv',
      schema: { params: TypeKindParams, response: { 200: Type.String({ description: 'CSV text with a header row and sample rows' }), 422: ErrorResponse } },
      handler: async ({ params, reply }) => {
        reply.type('text/csv; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="${params.kind}-sample.csv"`);
        return s.template(params.study_type as StudyType, params.kind as Kind, true);
      },
    }),
    op({
      operationId: 'createSampleStudy',
      method: 'POST',
      path: `${B}/samples/{study_type}`,
      summary: 'Create a study of this type filled with the sample inputs, in one call',
      description: 'Creates a study of the type with every input it takes set to the sample (version 1), ready to run.',
      access: BEARER.configure,
      schema: { params: Type.Object({ study_type: StudyTypeName }), response: { 201: Study } },
      handler: async ({ ctx, params }) => s.createSample(ctx, params.study_type as StudyType),
    }),
    ...resourceOps(op, STUDIES, {
      list: {
        summary: "The organisation's studies, newest first",
        description: "Cursor page of the organisation's studies, newest first, optionally of one study type, each with its current input versions.",
        query: Type.Object({
          study_type: Type.Optional(StudyTypeName),
          limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
          cursor: Type.Optional(CursorParam),
        }),
        response: Page('studies', Study),
        handler: (ctx, query) => s.list(ctx, query),
      },
      create: {
        summary: 'Create a study (inputs are added with PUT .../inputs/{kind})',
        description: 'Creates an empty study; `required_inputs` names the kinds a run needs.',
        access: BEARER.configure,
        body: Type.Object(
          {
            study_type: StudyTypeName,
            name: Type.String({ minLength: 1, maxLength: 200 }),
            description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
          },
          { additionalProperties: false },
        ),
        handler: (ctx, body) => s.create(ctx, body),
      },
      get: {
        summary: 'A study and its current input versions',
        description: "The study and its current input versions. 404 for another organisation's study.",
        errors: { 404: ErrorResponse },
        handler: (ctx, id) => s.get(ctx, id),
      },
      update: {
        summary: 'Rename a study or change its description',
        description: 'Changes name and/or description (at least one member). Inputs change through PUT .../inputs/{kind}.',
        access: BEARER.configure,
        body: Type.Object(
          { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))) },
          { additionalProperties: false, minProperties: 1 },
        ),
        errors: { 404: ErrorResponse },
        handler: (ctx, id, body) => s.update(ctx, id, body),
      },
      remove: {
        summary: 'Delete a study with its inputs and runs',
        description: 'Deletes the study, every input version and every run, in one transaction.',
        access: BEARER.configure,
        errors: { 404: ErrorResponse },
        handler: (ctx, id) => s.remove(ctx, id),
      },
    }),
    op({
      operationId: 'getStudyInput',
      method: 'GET',
      path: `${B}/{study_id}/inputs/{kind}`,
      summary: 'The current version of an input',
      description: 'The current version of the input: the CSV as sent and its parsed rows.',
      schema: { params: InputParams, response: { 200: Input, 404: ErrorResponse } },
      handler: async ({ ctx, params }) => s.getInput(ctx, params.study_id, params.kind as Kind),
    }),
    op({
      operationId: 'putStudyInput',
      method: 'PUT',
      path: `${B}/{study_id}/inputs/{kind}`,
      summary: 'Store a new version of an input from CSV',
      description:
        'The CSV must have the template\'s header row. Every bad row is named in the 422 (`msg` "line N, column C: ..."; line 1 is the header). Nothing is stored unless every row is good.',
      access: BEARER.configure,
      schema: {
        params: InputParams,
        body: Type.Object({ csv: Type.String({ minLength: 1, maxLength: 2_000_000, description: 'CSV text' }) }, { additionalProperties: false }),
        response: { 200: Input, 404: ErrorResponse },
      },
      handler: async ({ ctx, params, body }) => s.putInput(ctx, params.study_id, params.kind as Kind, body.csv),
    }),
    op({
      operationId: 'deleteStudyInput',
      method: 'DELETE',
      path: `${B}/{study_id}/inputs/{kind}`,
      summary: 'Remove an input (past versions stay for the runs that read them)',
      description: 'The kind is no longer current (a new run needs it again); past versions stay so earlier runs stay reproducible.',
      access: BEARER.configure,
      schema: { params: InputParams, response: { 204: Type.Null({ description: 'Removed' }), 404: ErrorResponse } },
      handler: async ({ ctx, params }) => {
        await s.deleteInput(ctx, params.study_id, params.kind as Kind);
      },
    }),
    op({
      operationId: 'listStudyRuns',
      method: 'GET',
      path: `${B}/{study_id}/runs`,
      summary: "A study's runs, newest first",
      description: "Cursor page of the study's runs, newest first, with state, progress, input versions and results.",
      dataBasis: { basis: 'calculated', method: MODEL_METHOD },
      schema: {
        params: StudyParams,
        query: Type.Object({ limit: Type.Optional(LimitParam({ default: 50, max: 200 })), cursor: Type.Optional(CursorParam) }),
        response: { 200: Page('runs', Run), 404: ErrorResponse },
      },
      handler: async ({ ctx, params, query }) => s.listRuns(ctx, params.study_id, query),
    }),
    op({
      operationId: 'startStudyRun',
      method: 'POST',
      path: `${B}/{study_id}/runs`,
      summary: 'Start a run: a background job (queued → running → succeeded or failed)',
      description: 'The run records the current version of each input it needs; the answer is the queued run. Poll GET .../runs/{run_id} for progress.',
      access: BEARER.configure,
      locates: `${B}/{study_id}/runs/{run_id}`,
      schema: { params: StudyParams, response: { 202: Run, 404: ErrorResponse, 409: ErrorResponse } },
      handler: async ({ ctx, params }) => s.startRun(ctx, params.study_id),
    }),
    op({
      operationId: 'getStudyRun',
      method: 'GET',
      path: `${B}/{study_id}/runs/{run_id}`,
      summary: 'A run: its state, progress, input versions and results',
      description:
        'The run: state (queued, running, succeeded, failed), progress, attempts, the input versions it read and, once succeeded, the results with label MODELLED and the display_label.',
      dataBasis: { basis: 'calculated', method: MODEL_METHOD },
      schema: { params: RunParams, response: { 200: Run, 404: ErrorResponse } },
      handler: async ({ ctx, params }) => s.getRun(ctx, params.study_id, params.run_id),
    }),
    op({
      operationId: 'getStudyRunReport',
      method: 'GET',
      path: `${B}/{study_id}/runs/{run_id}/report`,
      summary: "A succeeded run's report as one printable HTML page (server-side SVG chart, no external assets)",
      description:
        'One HTML page with the figures table, an SVG chart rendered on the server, assumptions and input versions; printable, no external assets. 409 until the run has succeeded.',
      produces: 'text/html',
      dataBasis: { basis: 'calculated', method: MODEL_METHOD },
      schema: { params: RunParams, response: { 200: Type.String({ description: 'HTML' }), 404: ErrorResponse, 409: ErrorResponse } },
      handler: async ({ ctx, params, reply }) => {
        const html = await s.report(ctx, params.study_id, params.run_id);
        reply.type('text/html; charset=utf-8');
        reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; img-src data:");
        return html;
      },
    }),
    op({
      operationId: 'getStudyProposalPack',
      method: 'GET',
      path: `${B}/{study_id}/runs/{run_id}/proposal-pack`,
      summary: 'The proposal pack: a ZIP of the report, a covering letter and a manifest of SHA-256s (sends nothing)',
      description:
        'A ZIP of report.html, covering-letter.txt and manifest.json (each other file with its size and SHA-256). Built on request and sent nowhere. 409 until the run has succeeded.',
      produces: 'application/zip',
      dataBasis: { basis: 'calculated', method: MODEL_METHOD },
      schema: {
        params: RunParams,
        response: { 200: Type.String({ description: 'ZIP: report.html, covering-letter.txt, manifest.json' }), 404: ErrorResponse, 409: ErrorResponse },
      },
      handler: async ({ ctx, params, reply }) => {
        const zip = await s.pack(ctx, params.study_id, params.run_id);
        reply.type('application/zip');
        reply.header('Content-Disposition', `attachment; filename="proposal-${params.run_id}.zip"`);
        return zip;
      },
    }),
  ];
}
