// Energy receipts: payloads stored and signed with the service's Ed25519 key; public keys published.
import type { ModuleFactory } from '../../platform/module.ts';
import { createKeyring } from './keys.ts';
import { createReceiptService } from './service.ts';
import { esgOperations } from './routes.ts';

export const esgModule: ModuleFactory = (deps) => {
  const keys = createKeyring({
    db: deps.db,
    clock: deps.clock,
    configuredPem: deps.config.esgSigningKeyPem,
    production: deps.config.nodeEnv === 'production',
  });
  return { name: 'esg', operations: esgOperations(createReceiptService(deps, keys), keys) };
};

export { canonicalJson } from './canonical.ts';
