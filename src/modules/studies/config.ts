// The studies module's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const studiesConfig = configSection('studies', (r) => ({
  /** Study runs one organisation may have queued or running (decision 0291). */
  maxQueuedRuns: r.int('STUDIES_MAX_QUEUED_RUNS', 5, 1, 1000),
}));

export type StudiesConfig = SettingsOf<typeof studiesConfig>;
