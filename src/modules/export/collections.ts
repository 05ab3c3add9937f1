// What an exportable collection is. Each module that owns data offers its collections as a service
// (e.g. TELEMETRY_EXPORTABLE, STATEMENTS_EXPORTABLE) with this shape; the export module lists those
// services and never names another module's tables (decision 0203).
import type { Queryable } from '../../infra/db/index.ts';

export interface ExportPeriod {
  from: Date | null;
  to: Date | null;
}

export interface ExportableCollection {
  /** `<module>.<collection>`, unique. */
  name: string;
  description: string;
  /** The members of each row, in CSV column order. */
  columns: readonly string[];
  /** The time the period filters on. */
  periodColumn: string;
  count(q: Queryable, orgId: string, period: ExportPeriod): Promise<number>;
  /**
   * The next rows after `after` (the key of the last row written; null from the start), in a
   * stable key order, at most `limit`; `last` is the key of the last row returned.
   */
  page(q: Queryable, orgId: string, period: ExportPeriod, after: string | null, limit: number): Promise<{ rows: Record<string, unknown>[]; last: string | null }>;
}
