// The developer platform's settings (read with the rest at start; docs/configuration.md).
import type { ConfigSection } from '../../core/config-section.ts';

export interface DevtoolsConfig {
  /** Key and webhook management requests per organisation a minute (concepts.md section 8: 60). */
  managementPerMinutePerOrg: number;
  /** Deadline of one webhook delivery attempt (spec: 10 s; lower only to shed dead receivers faster). */
  webhookTimeoutMs: number;
  /** Pending sandbox deliveries an organisation may have before sample sends are refused (decision 0089). */
  sandboxMaxPendingDeliveries: number;
}

export const devtoolsConfig: ConfigSection<DevtoolsConfig> = {
  name: 'devtools',
  read: (r) => ({
    managementPerMinutePerOrg: r.int('RATE_LIMIT_DEVTOOLS_PER_MIN', 60, 1, 1_000_000),
    webhookTimeoutMs: r.int('WEBHOOK_TIMEOUT_MS', 10_000, 50, 10_000),
    sandboxMaxPendingDeliveries: r.int('SANDBOX_MAX_PENDING_DELIVERIES', 100, 1, 100_000),
  }),
};
