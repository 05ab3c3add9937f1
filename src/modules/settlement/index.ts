// Settlement receipts: signed records of delivered energy, chained per organisation, verifiable
// from the published keys and, when shared, by counterparties through their hash.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { RECEIPT_KEYRING } from '../esg/index.ts';
import { createSettlementService } from './service.ts';
import { receiptOperations } from './routes/receipts.ts';
import { verifyOperations } from './routes/verify.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { settlementExportables } from './store.ts';

export const settlementModule: ModuleCreate = (deps) => {
  // The service's receipt key, as energy receipts use it (decision 0110).
  const service = createSettlementService({ ...deps, audit: deps.services.get(AUDIT_LOG) }, deps.services.get(RECEIPT_KEYRING));
  return {
    tags: {
      settlement: 'Signed settlement receipts chained per organisation, public verification, reconciliation and keys.',
    },
    operations: [...receiptOperations(service), ...verifyOperations(service)],
  };
};

/** This module as the module list names it. */
export const settlementDefinition: ModuleDefinition = {
  name: 'settlement',
  dependsOn: ['orgs', 'esg', 'audit'],
  migrations: migrationsDir(import.meta.url),
  exportable: settlementExportables,
  create: settlementModule,
};

/** The one signer and checker of the service's signed records (decisions 0110, 0200): canonical JSON
 * (RFC 8785) signed with Ed25519 by the RECEIPT_KEYRING key; other modules' signed records use these. */
export { signBody, sha256Hex, isoInstant, signatureMembers, type Signed } from './format.ts';
export { checkSigned, type KeyLookup, type Presented } from './verify.ts';
