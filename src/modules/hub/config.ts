// The charging hub's settings (docs/configuration.md, "Charging hub").
import type { ConfigSection } from '../../core/config-section.ts';

export interface HubConfig {
  /** The WebSocket base URL chargers are given (ws:// or wss://, no path); absent: ws://<the request's Host>. */
  ocppPublicUrl: string | null;
  /** The Heartbeat interval a BootNotification answer gives chargers, seconds. */
  heartbeatIntervalS: number;
  /** How long a CALL to a charger (SetChargingProfile) waits for its answer, ms. */
  commandTimeoutMs: number;
}

export const hubConfig: ConfigSection<HubConfig> = {
  name: 'hub',
  read: (r) => ({
    ocppPublicUrl: r.url('HUB_OCPP_PUBLIC_URL', ['ws:', 'wss:']) ?? null,
    heartbeatIntervalS: r.int('HUB_HEARTBEAT_INTERVAL_SECONDS', 300, 10, 86_400),
    commandTimeoutMs: r.int('HUB_COMMAND_TIMEOUT_MS', 10_000, 100, 120_000),
  }),
};
