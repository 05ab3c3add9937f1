// Data export (endpoints.md 4.7): manifest, jobs, progress and streamed downloads.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { defineOperation } from '../../platform/operation.ts';
import { ADMIN_ONLY, CAN_READ } from '../../platform/roles.ts';
import type { ExportService } from './service.ts';
import { CollectionParams, CollectionQuery, CreateBody, ExportJob, JobParams, Manifest } from './schemas.ts';

const BASE = '/api/organisations/export';
const tags = ['export'];

export function exportOperations(svc: ExportService) {
  return [
    defineOperation({
      operationId: 'getExportManifest',
      method: 'GET',
      path: `${BASE}/manifest`,
      summary: 'The collections an export can hold, with row counts and what each holds',
      description: 'Each collection is offered by the module that owns the data; counts are your organisation’s rows now.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: CAN_READ },
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Manifest } },
      handler: async ({ ctx }) => svc.manifest(ctx),
    }),
    defineOperation({
      operationId: 'createExport',
      method: 'POST',
      path: BASE,
      summary: 'Start an export of your organisation’s data (a background job)',
      description:
        'Queues a job that copies the chosen collections (all when none are named), optionally limited to a period, from the store ' +
        'a chunk at a time. Answers 202 with the job; follow its progress at GET /jobs/{job_id}. Organisation administrators only.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: ADMIN_ONLY },
      successStatus: 202,
      schema: { body: CreateBody, response: { 202: ExportJob } },
      handler: async ({ body, ctx }) => svc.create(ctx, body),
    }),
    defineOperation({
      operationId: 'getExportJob',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}`,
      summary: 'An export job’s state and progress',
      description: 'Rows written of rows expected, the collections done, when the files expire.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: ADMIN_ONLY },
      dataBasis: { basis: 'stored' },
      schema: { params: JobParams, response: { 200: ExportJob } },
      handler: async ({ params, ctx }) => svc.job(ctx, params.job_id),
    }),
    defineOperation({
      operationId: 'downloadExport',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}/download`,
      summary: 'The whole export as JSON Lines',
      description:
        'One line a row: `{"collection": "<name>", "row": {…}}`, collections in the order asked. Streamed from the store a chunk at a ' +
        'time. 409 before the job completes, 410 once its files expired.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: ADMIN_ONLY },
      dataBasis: { basis: 'stored' },
      produces: 'application/x-ndjson',
      schema: { params: JobParams, response: { 200: Type.String({ description: 'JSON Lines' }) } },
      handler: async ({ params, ctx, reply }) => {
        const stream = await svc.download(ctx, params.job_id);
        reply.type('application/x-ndjson; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="export-${params.job_id}.jsonl"`);
        return Readable.from(stream, { objectMode: false });
      },
    }),
    defineOperation({
      operationId: 'downloadExportCollection',
      method: 'GET',
      path: `${BASE}/jobs/{job_id}/collections/{collection}`,
      summary: 'One collection of an export, as JSON Lines or CSV',
      description:
        'JSON Lines (the rows themselves) or CSV (RFC 4180, CRLF, header row; a cell starting with = + - @ or a tab is prefixed with a ' +
        'quote, as the audit CSV does; objects are JSON text). `format` defaults to the job’s. Streamed a chunk at a time.',
      tags,
      status: 'live',
      access: { kind: 'bearer', roles: ADMIN_ONLY },
      dataBasis: { basis: 'stored' },
      produces: 'application/x-ndjson',
      schema: { params: CollectionParams, query: CollectionQuery, response: { 200: Type.String({ description: 'JSON Lines or CSV' }) } },
      handler: async ({ params, query, ctx, reply }) => {
        const r = await svc.collection(ctx, params.job_id, params.collection, query.format);
        reply.type(r.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
        reply.header('Content-Disposition', `attachment; filename="${params.collection}.${r.format}"`);
        return Readable.from(r.stream, { objectMode: false });
      },
    }),
  ];
}
