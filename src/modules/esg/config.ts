// The receipts module's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const esgConfig = configSection('esg', (r) => ({
  /** Ed25519 key (PKCS8 PEM) signing energy receipts; absent = generated and kept in the store (not in production). */
  signingKeyPem: r.ed25519Key('ESG_SIGNING_KEY'),
}));

export type EsgConfig = SettingsOf<typeof esgConfig>;
