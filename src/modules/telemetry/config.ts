// The telemetry module's settings (read with the rest at start; docs/configuration.md).
import type { ConfigSection } from '../../core/config-section.ts';

export interface TelemetryConfig {
  /** Retention of raw telemetry, in days (0 = keep forever). */
  retentionDays: number;
}

export const telemetryConfig: ConfigSection<TelemetryConfig> = {
  name: 'telemetry',
  read: (r) => ({ retentionDays: r.int('TELEMETRY_RETENTION_DAYS', 0, 0, 36500) }),
};
