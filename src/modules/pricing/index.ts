// Pricing: the GB charge library (rates and DUoS time bands, published and the organisation's
// own), supply points by MPAN, the pricing engine at an MPAN, and versioned retail tariffs with
// bills, comparison, smart bands and cost-plus.
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { createLibrary } from './library.ts';
import { createTariffs } from './tariffs.ts';
import { pricingOperations } from './routes.ts';
import { PRICING_ERROR_DOCS } from './errors.ts';

export const pricingModule: ModuleFactory = (deps) => {
  const audit = deps.services.get(AUDIT_LOG);
  const { db, clock, cursors } = deps;
  const library = createLibrary({ db, clock, audit, cursors });
  const tariffs = createTariffs({ db, clock, audit, cursors });
  return {
    name: 'pricing',
    tags: {
      charges: 'The GB charge library (DUoS by time band, fixed and capacity charges, TNUoS, BSUoS, policy costs, CCL, VAT), supply points by MPAN and the pricing engine.',
      tariffs: 'Versioned, append-only retail tariffs: validation, bills, comparison, smart bands and cost-plus pricing.',
    },
    errors: PRICING_ERROR_DOCS,
    operations: pricingOperations(library, tariffs),
  };
};

export { parseMpanCore, mpanCheckDigit } from './mpan.ts';

/** This module as the module list names it. */
export const pricingDefinition: ModuleDefinition = {
  name: 'pricing',
  dependsOn: ['orgs', 'audit', 'market'],
  migrations: migrationsDir(import.meta.url),
  create: pricingModule,
};
