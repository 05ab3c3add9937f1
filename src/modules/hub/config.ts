// The charging hub's settings (docs/configuration.md, "Charging hub").
import type { ConfigSection } from '../../core/config-section.ts';

export interface HubConfig {
  /**
   * The WebSocket base URL chargers are given (ws:// or wss://, no path). Required in production;
   * elsewhere absent means the address this instance listens on (never a request's Host).
   */
  ocppPublicUrl: string | null;
  /** The Heartbeat interval a BootNotification answer gives chargers, seconds. */
  heartbeatIntervalS: number;
  /** How long a CALL to a charger (SetChargingProfile) waits for its answer, ms. */
  commandTimeoutMs: number;
  /** The largest WebSocket message a charger may send, bytes; a larger one closes the connection (1009). */
  maxFrameBytes: number;
  /** Bad messages (malformed frames, calls failing the OCPP schema) a connection may send in a minute before it is closed (1008). */
  badMessagesPerMinute: number;
}

export const hubConfig: ConfigSection<HubConfig> = {
  name: 'hub',
  read: (r) => {
    const ocppPublicUrl = r.url('HUB_OCPP_PUBLIC_URL', ['ws:', 'wss:']) ?? null;
    // Production names the URL chargers reach it at, over TLS: security profile 1 sends the
    // charger's password in every handshake (decision 0273).
    if (r.nodeEnv === 'production' && !ocppPublicUrl?.startsWith('wss:')) {
      r.fail('HUB_OCPP_PUBLIC_URL must be set in production to the wss:// URL chargers reach this service at (e.g. wss://hub.example.com)');
    }
    return {
      ocppPublicUrl,
      heartbeatIntervalS: r.int('HUB_HEARTBEAT_INTERVAL_SECONDS', 300, 10, 86_400),
      commandTimeoutMs: r.int('HUB_COMMAND_TIMEOUT_MS', 10_000, 100, 120_000),
      maxFrameBytes: r.int('HUB_OCPP_MAX_FRAME_BYTES', 256 * 1024, 16 * 1024, 4 * 1024 * 1024),
      badMessagesPerMinute: r.int('HUB_OCPP_BAD_MESSAGES_PER_MINUTE', 20, 1, 10_000),
    };
  },
};
