// The developer platform's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const devtoolsConfig = configSection('devtools', (r) => ({
  /** Key and webhook management requests per organisation a minute (concepts.md section 8: 60). */
  managementPerMinutePerOrg: r.int('RATE_LIMIT_DEVTOOLS_PER_MIN', 60, 1, 1_000_000),
  /** Deadline of one webhook delivery attempt (spec: 10 s; lower only to shed dead receivers faster). */
  webhookTimeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 10_000, 50, 10_000),
  /** Pending sandbox deliveries an organisation may have before sample sends are refused (decision 0089). */
  sandboxMaxPendingDeliveries: r.int('SANDBOX_MAX_PENDING_DELIVERIES', 100, 1, 100_000),
}));

export type DevtoolsConfig = SettingsOf<typeof devtoolsConfig>;
