// The telemetry module's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const telemetryConfig = configSection('telemetry', (r) => ({
  /** Retention of raw telemetry, in days (0 = keep forever). */
  retentionDays: r.int('TELEMETRY_RETENTION_DAYS', 0, 0, 36500),
}));

export type TelemetryConfig = SettingsOf<typeof telemetryConfig>;
