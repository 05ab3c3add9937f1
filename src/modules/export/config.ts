// The export module's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const exportConfig = configSection('export', (r) => ({
  /** Hours an export's files are kept after it completes; then they are deleted. */
  ttlHours: r.int('EXPORT_TTL_HOURS', 72, 1, 24 * 30),
  /** Rows read from the store and written as one chunk, in one transaction. */
  chunkRows: r.int('EXPORT_CHUNK_ROWS', 5000, 1, 100_000),
  /** Chunks one job step writes before it queues the next step (a step stays well within its lease). */
  stepChunks: r.int('EXPORT_STEP_CHUNKS', 40, 1, 10_000),
  /** Exports one organisation may have queued or running (decision 0291). */
  maxQueued: r.int('EXPORT_MAX_QUEUED', 2, 1, 100),
}));

export type ExportConfig = SettingsOf<typeof exportConfig>;
