// Energy receipts: payloads stored and signed with the service's Ed25519 key; public keys published.
import { migrationsDir, type AppDeps, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { createKeyring } from './keys.ts';
import { serviceKey } from '../../platform/services.ts';
import { createReceiptService } from './service.ts';
import { esgOperations } from './routes.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { sectionOf } from '../../core/config-section.ts';
import { esgConfig } from './config.ts';
import { ESG_ERROR_DOCS } from './errors.ts';

/** The service's receipt keyring from configuration. */
const receiptKeyring = (deps: Pick<AppDeps, 'db' | 'clock' | 'config'>) =>
  createKeyring({
    db: deps.db,
    clock: deps.clock,
    configuredPem: sectionOf(deps.config, esgConfig).signingKeyPem,
    production: deps.config.nodeEnv === 'production',
  });

/** The one receipt keyring; settlement receipts are signed with it too (decision 0110). */
export type ReceiptKeyring = ReturnType<typeof createKeyring>;
export const RECEIPT_KEYRING = serviceKey<ReceiptKeyring>('esg.receipt-keyring');

export const esgModule: ModuleCreate = (deps) => {
  const keys = deps.services.get(RECEIPT_KEYRING);
  return {
    tags: {
      certificates: 'Signed energy receipts and the keys that verify them.',
    },
    errors: ESG_ERROR_DOCS,
    operations: esgOperations(createReceiptService({ ...deps, audit: deps.services.get(AUDIT_LOG) }, keys), keys),
  };
};

// The service's receipt signing keys, shared with settlement receipts (decision 0110).
export type { Keyring } from './keys.ts';
export { PublicKey as PublicKeySchema } from './routes.ts';

/** This module as the module list names it. */
export const esgDefinition: ModuleDefinition = {
  name: 'esg',
  dependsOn: ['orgs', 'audit'],
  migrations: migrationsDir(import.meta.url),
  config: esgConfig,
  provides: (deps, registry) => registry.provide(RECEIPT_KEYRING, receiptKeyring(deps)),
  create: esgModule,
};
