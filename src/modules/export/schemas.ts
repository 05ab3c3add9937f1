// TypeBox schemas of the data export operations.
import { Type } from 'typebox';
import { JobProgressSchema, Nullable } from '../../platform/schema-kit.ts';

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z][a-z0-9_-]*\\.[a-z][a-z0-9_-]*$',
  description: 'A collection name from the manifest, `<module>.<collection>`',
});
const Format = Type.Union([Type.Literal('jsonl'), Type.Literal('csv')], {
  description: 'jsonl: JSON Lines (one JSON object a row); csv: RFC 4180 with a header row',
});

export const JobParams = Type.Object({ job_id: Type.String({ minLength: 1, maxLength: 100, description: 'The export job’s id' }) });
export const CollectionParams = Type.Object({
  job_id: Type.String({ minLength: 1, maxLength: 100, description: 'The export job’s id' }),
  collection: Name,
});
export const CollectionQuery = Type.Object({ format: Type.Optional(Format) }, { additionalProperties: false });

export const Manifest = Type.Object({
  collections: Type.Array(
    Type.Object({
      name: Type.String(),
      description: Type.String({ description: 'What each row holds' }),
      columns: Type.Array(Type.String(), { description: 'The members of each row (CSV column order)' }),
      period_column: Type.String({ description: 'The time a job’s from/to filter on' }),
      row_count: Type.Integer({ description: 'Rows of your organisation now' }),
    }),
  ),
  formats: Type.Array(Format),
  expires_after_hours: Type.Integer({ description: 'Hours an export’s files are kept after it completes' }),
});

export const CreateBody = Type.Object(
  {
    collections: Type.Optional(Type.Array(Name, { minItems: 1, maxItems: 100, description: 'Collections to export; all of the manifest when absent' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only rows at or after this instant (each collection’s period_column)' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only rows before this instant' })),
    format: Type.Optional(Format),
  },
  { additionalProperties: false },
);

export const ExportJob = Type.Object({
  job_id: Type.String(),
  status: Type.Union(
    ['queued', 'running', 'completed', 'failed', 'expired'].map((s) => Type.Literal(s)),
    {
      description: 'queued → running → completed (files ready until expires_at) → expired (files deleted); failed after repeated errors',
    },
  ),
  collections: Type.Array(Type.String()),
  from: Nullable(Type.String({ format: 'date-time' })),
  to: Nullable(Type.String({ format: 'date-time' })),
  format: Format,
  progress: JobProgressSchema('rows', 'counted when the job was created; rows the organisation gains meanwhile are written too, so done may pass total'),
  collections_done: Type.Integer({ minimum: 0, description: 'Collections written whole so far' }),
  created_at: Type.String({ format: 'date-time' }),
  started_at: Nullable(Type.String({ format: 'date-time' })),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  expires_at: Nullable(Type.String({ format: 'date-time' }), 'When the files are deleted'),
  error: Nullable(Type.String()),
  download_path: Type.String(),
  collection_paths: Type.Record(Type.String(), Type.String()),
});
