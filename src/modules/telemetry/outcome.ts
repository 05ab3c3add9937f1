// What an ingestion answer counts: shared by the service that builds it and the errors that carry it.
import type { RecordProblem } from './normalise.ts';

export interface AnomalyEntry {
  index: number;
  asset_id: string;
  reasons: string[];
  record: Record<string, unknown>;
}

export type ResultEntry =
  | { index: number; status: 'stored'; anomalies?: string[] }
  | { index: number; status: 'duplicate'; duplicate_of: number }
  | { index: number; status: 'rejected'; field: string | null; reason: string; message: string; errors: RecordProblem[] };

export interface IngestCounts {
  count: number;
  stored: number;
  streamed: number;
  accepted: number;
  rejected: number;
  duplicates: number;
  anomalies: AnomalyEntry[];
  results?: ResultEntry[];
}
