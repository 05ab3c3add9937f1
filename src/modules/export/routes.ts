// Data export (endpoints.md 4.7): manifest, jobs, progress and streamed downloads.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import type { ExportService } from './service.ts';
import { CollectionParams, CollectionQuery, CreateBody, ExportJob, JobParams, Manifest } from './schemas.ts';

const BASE = '/api/organisations/export';
const tags = ['export'];

const op = withDefaults({ tags, status: 'live', access: BEARER.admin });

export function exportOperations(svc: ExportService) {
  return [
    op({
      operationId: 'getExportManifest',
      method: 'GET',
      path: `${BASE}/manifest`,
      summary: 'The collections an export can hold, with row counts and what each holds',
      description: 'Each collection is offered by the module that owns the data; counts are your organisation’s rows now.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Manifest } },
      handler: async ({ ctx }) => svc.manifest(ctx),
    }),
    op({
      operationId: 'createExport',
      method: 'POST',
      path: BASE,
      summary: 'Start an export of your organisation’s data (a background job)',
      description:
        'Queues a job that copies the chosen collections (all when none are named), optionally limited to a period, from the store ' +
        'a chunk at a time. Answers 202 with the job; follow its progress at GET /jobs/{job_id}. Organisation administrators only.',
      locates: `${BASE}/jobs/{job_id}`,
      schema: { body: CreateBody, response: { 202: ExportJob } },
      handler: async ({ body, ctx }) => svc.create(ctx, body),
    }),
    op({
      operationId: 'getExportJob',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}`,
      summary: 'An export job’s state and progress',
      description: 'Rows written of rows expected, the collections done, when the files expire.',
      dataBasis: { basis: 'stored' },
      schema: { params: JobParams, response: { 200: ExportJob } },
      handler: async ({ params, ctx }) => svc.job(ctx, params.job_id),
    }),
    op({
      operationId: 'downloadExport',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}/download`,
      summary: 'The whole export as JSON Lines',
      description:
        'One line a row: `{"collection": "<name>", "row": {…}}`, collections in the order asked. Streamed from the store a chunk at a ' +
        'time. 409 before the job completes, 410 once its files expired.',
      dataBasis: { basis: 'stored' },
      produces: 'application/x-ndjson',
      schema: { params: JobParams, response: { 200: Type.String({ description: 'JSON Lines' }) } },
      handler: async ({ params, ctx, reply }) => {
        const stream = await svc.download(ctx, params.job_id);
        reply.type('application/x-ndjson; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="export-${params.job_id}.jsonl"`);
        return stream;
      },
    }),
    op({
      operationId: 'downloadExportCollection',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}/collections/{collection}`,
      summary: 'One collection of an export, as JSON Lines or CSV',
      description:
        'JSON Lines (the rows themselves) or CSV (RFC 4180, CRLF, header row; a cell starting with = + - @ or a tab is prefixed with a ' +
        'quote, as the audit CSV does; objects are JSON text). `format` defaults to the job’s. Streamed a chunk at a time.',
      dataBasis: { basis: 'stored' },
      produces: 'application/x-ndjson',
      schema: { params: CollectionParams, query: CollectionQuery, response: { 200: Type.String({ description: 'JSON Lines or CSV' }) } },
      handler: async ({ params, query, ctx, reply }) => {
        const r = await svc.collection(ctx, params.job_id, params.collection, query.format);
        reply.type(r.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="${params.collection}.${r.format}"`);
        return r.stream;
      },
    }),
  ];
}
