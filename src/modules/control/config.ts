// Control settings: how long the export limitation loop's idle iterations are kept.
import type { ConfigSection } from '../../core/config-section.ts';

export interface ControlConfig {
  /** Days a scheduled loop iteration that sent nothing (and its decision) is kept; acting ones are kept. */
  idleTickRetentionDays: number;
}

export const controlConfig: ConfigSection<ControlConfig> = {
  name: 'control',
  read: (r) => ({
    idleTickRetentionDays: r.int('CONTROL_IDLE_TICK_RETENTION_DAYS', 7, 1, 3650),
  }),
};
