// Fleet savings statements: baselines per site (proposed → agreed / withdrawn), statements issued
// against an agreed baseline and signed with the service's receipt key exactly as settlement
// receipts are (decisions 0110, 0200), a printable page, and public verification.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { RECEIPT_KEYRING } from '../esg/index.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { ENERGY_FIGURES } from '../energy/index.ts';
import { REGISTRY_SITES } from '../registry/index.ts';
import { createStatementService } from './service.ts';
import { statementOperations } from './routes.ts';
import { STATEMENT_ERROR_DOCS } from './errors.ts';
import { statementExportables } from './store.ts';

export const statementsModule: ModuleCreate = (deps) => {
  const service = createStatementService(
    { ...deps, audit: deps.services.get(AUDIT_LOG), energy: deps.services.get(ENERGY_FIGURES), sites: deps.services.get(REGISTRY_SITES) },
    deps.services.get(RECEIPT_KEYRING),
  );
  return {
    tags: { 'fleet-statements': 'Fleet savings statements: baselines, signed statements, a printable page and public verification.' },
    errors: STATEMENT_ERROR_DOCS,
    operations: statementOperations(service),
  };
};

/** This module as the module list names it. */
export const statementsDefinition: ModuleDefinition = {
  name: 'statements',
  dependsOn: ['orgs', 'audit', 'registry', 'esg', 'settlement', 'energy', 'market'],
  migrations: migrationsDir(import.meta.url),
  exportable: statementExportables,
  create: statementsModule,
};
