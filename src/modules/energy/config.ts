// The energy module's settings (docs/configuration.md, "Energy accounting").
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const energyConfig = configSection('energy', (r) => ({
  /** Consecutive power samples further apart than this are a gap, not integrated. */
  powerGapSeconds: r.int('ENERGY_POWER_GAP_SECONDS', 900, 60, 7200),
  /** Consecutive counter readings further apart than this are a gap (their advance is not placed). */
  counterGapSeconds: r.int('ENERGY_COUNTER_GAP_SECONDS', 7200, 300, 86_400),
  /** How often the refresh job folds newly stored telemetry into the half-hour rollup. */
  refreshIntervalSeconds: r.int('ENERGY_REFRESH_INTERVAL_SECONDS', 30, 1, 3600),
  /** Rows the interval exports read from the rollup at a time (keyset batches; memory stays at one batch). */
  exportBatchRows: r.int('ENERGY_EXPORT_BATCH_ROWS', 2000, 10, 50_000),
  /** Ledger rebuilds one organisation may have queued or running, one a site at most (decision 0291). */
  maxQueuedRebuilds: r.int('ENERGY_MAX_QUEUED_REBUILDS', 10, 1, 1000),
}));

export type EnergyConfig = SettingsOf<typeof energyConfig>;
