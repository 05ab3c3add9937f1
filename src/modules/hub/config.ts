// The charging hub's settings (docs/configuration.md, "Charging hub").
import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { configSection, type ConfigReader } from '../../core/config-section.ts';

/** The OCPP TLS listener (security profiles 2 and 3, decision 0430): its certificate chain and key, as PEM, and its port. */
export interface HubTlsConfig {
  cert: string;
  key: string;
  /** 0: any free port (tests). */
  port: number;
}

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
  /**
   * Seconds between the clock-aligned register readings the hub asks of each charger when it boots
   * (1.6 ClockAlignedDataInterval, 2.0.1 AlignedDataCtrlr.Interval; decision 0489); 0: the hub
   * leaves the charger's metering configuration as it is.
   */
  meterAlignedSeconds: number;
  /** The largest WebSocket message a charger may send, bytes; a larger one closes the connection (1009). */
  maxFrameBytes: number;
  /** Bad messages (malformed frames, calls failing the OCPP schema) a connection may send in a minute before it is closed (1008). */
  badMessagesPerMinute: number;
  /** The TLS listener for chargers (wss://), when HUB_OCPP_TLS_CERT_FILE and HUB_OCPP_TLS_KEY_FILE are set; null: plain ws:// only. */
  tls: HubTlsConfig | null;
}

/** Reads a PEM file named by a setting; refuses the configuration when it cannot be read or is not what it should be. */
function pemFile(r: ConfigReader, name: string, path: string, check: (pem: string) => void): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (e) {
    r.fail(`${name}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    check(pem);
  } catch {
    r.fail(`${name}: ${path} is not a PEM ${name.endsWith('KEY_FILE') ? 'private key' : 'certificate'}`);
  }
  return pem;
}

function readTls(r: ConfigReader): HubTlsConfig | null {
  const certFile = r.optional('HUB_OCPP_TLS_CERT_FILE');
  const keyFile = r.optional('HUB_OCPP_TLS_KEY_FILE');
  if (!certFile && !keyFile) {
    if (r.optional('HUB_OCPP_TLS_PORT'))
      r.fail('HUB_OCPP_TLS_PORT is set but the TLS listener is not: set HUB_OCPP_TLS_CERT_FILE and HUB_OCPP_TLS_KEY_FILE too');
    return null;
  }
  if (!certFile || !keyFile) r.fail('HUB_OCPP_TLS_CERT_FILE and HUB_OCPP_TLS_KEY_FILE are set together (the certificate chain and its private key, PEM)');
  const cert = pemFile(r, 'HUB_OCPP_TLS_CERT_FILE', certFile, (pem) => new X509Certificate(pem));
  const key = pemFile(r, 'HUB_OCPP_TLS_KEY_FILE', keyFile, (pem) => createPrivateKey(pem));
  if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key)))
    r.fail('HUB_OCPP_TLS_KEY_FILE is not the private key of the certificate in HUB_OCPP_TLS_CERT_FILE');
  return { cert, key, port: r.int('HUB_OCPP_TLS_PORT', 8443, 0, 65_535) };
}

export const hubConfig = configSection<HubConfig>('hub', (r) => {
  const ocppPublicUrl = r.url('HUB_OCPP_PUBLIC_URL', ['ws:', 'wss:']) ?? null;
  // Production names the URL chargers reach it at, over TLS: security profile 1 sends the
  // charger's password in every handshake (decision 0273).
  if (r.nodeEnv === 'production' && !ocppPublicUrl?.startsWith('wss:')) {
    r.fail('HUB_OCPP_PUBLIC_URL must be set in production to the wss:// URL chargers reach this service at (e.g. wss://hub.example.com)');
  }
  const tls = readTls(r);
  if (tls && ocppPublicUrl?.startsWith('ws:'))
    r.fail('HUB_OCPP_PUBLIC_URL is ws:// but the OCPP TLS listener is configured (HUB_OCPP_TLS_CERT_FILE): give chargers its wss:// URL');
  return {
    ocppPublicUrl,
    heartbeatIntervalS: r.int('HUB_HEARTBEAT_INTERVAL_SECONDS', 300, 10, 86_400),
    commandTimeoutMs: r.int('HUB_COMMAND_TIMEOUT_MS', 10_000, 100, 120_000),
    meterAlignedSeconds: r.int('HUB_METER_ALIGNED_SECONDS', 0, 0, 86_400),
    maxFrameBytes: r.int('HUB_OCPP_MAX_FRAME_BYTES', 256 * 1024, 16 * 1024, 4 * 1024 * 1024),
    badMessagesPerMinute: r.int('HUB_OCPP_BAD_MESSAGES_PER_MINUTE', 20, 1, 10_000),
    tls,
  };
});
