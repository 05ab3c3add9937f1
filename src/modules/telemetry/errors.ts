// The telemetry module's errors, named once. Members beside `detail` are documented in the
// operation's response schemas and in docs/telemetry.md (decision 0041).
import { AppError } from '../../platform/errors.ts';
import type { IngestCounts } from './outcome.ts';

/** Seconds a sender should wait before retrying a batch the store did not take. */
export const WRITER_RETRY_AFTER_SECONDS = 5;

export const telemetryErrors = {
  /** A record names another organisation: the whole batch is refused and nothing is stored. */
  crossTenantRecord: (index: number, field: string) =>
    new AppError(403, 'cross_tenant_record', {
      code: 'cross_tenant_record',
      message: `Record ${index} names another organisation in ${field}`,
      members: { index, field },
    }),
  /** Every record was rejected; nothing was stored. */
  allRecordsRejected: (counts: IngestCounts) =>
    new AppError(422, 'all_records_rejected', {
      code: 'all_records_rejected',
      message: 'Every record was rejected; nothing was stored',
      members: { ...counts },
    }),
  /** The store did not persist the batch (it may have been streamed). Retry it. */
  writerError: (counts: IngestCounts) =>
    new AppError(503, 'writer_error', {
      code: 'writer_error',
      message: 'The telemetry store did not persist the batch; retry it',
      headers: { 'Retry-After': String(WRITER_RETRY_AFTER_SECONDS) },
      members: { ...counts },
    }),
  storeUnavailable: () =>
    new AppError(503, 'Telemetry store unavailable', {
      code: 'store_unavailable',
      headers: { 'Retry-After': String(WRITER_RETRY_AFTER_SECONDS) },
    }),
};
