// Control settings: how long the export limitation loop's idle iterations are kept.
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const controlConfig = configSection('control', (r) => ({
  /** Days a scheduled loop iteration that sent nothing (and its decision) is kept; acting ones are kept. */
  idleTickRetentionDays: r.int('CONTROL_IDLE_TICK_RETENTION_DAYS', 7, 1, 3650),
}));

export type ControlConfig = SettingsOf<typeof controlConfig>;
