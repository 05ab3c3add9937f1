// The studies module's settings (read with the rest at start; docs/configuration.md).
import type { ConfigSection } from '../../core/config-section.ts';

export interface StudiesConfig {
  /** Study runs one organisation may have queued or running (decision 0291). */
  maxQueuedRuns: number;
}

export const studiesConfig: ConfigSection<StudiesConfig> = {
  name: 'studies',
  read: (r) => ({ maxQueuedRuns: r.int('STUDIES_MAX_QUEUED_RUNS', 5, 1, 1000) }),
};
