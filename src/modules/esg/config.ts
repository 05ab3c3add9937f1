// The receipts module's settings (read with the rest at start; docs/configuration.md).
import type { ConfigSection } from '../../core/config-section.ts';

export interface EsgConfig {
  /** Ed25519 key (PKCS8 PEM) signing energy receipts; absent = generated and kept in the store (not in production). */
  signingKeyPem?: string;
}

export const esgConfig: ConfigSection<EsgConfig> = {
  name: 'esg',
  read: (r) => ({ signingKeyPem: r.ed25519Key('ESG_SIGNING_KEY') }),
};
