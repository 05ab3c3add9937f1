// Pricing: the GB charge library (rates and DUoS time bands, published and the organisation's
// own), supply points by MPAN, the pricing engine at an MPAN, and versioned retail tariffs with
// bills, comparison, smart bands and cost-plus.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { createLibrary } from './library.ts';
import { createTariffs } from './tariffs.ts';
import { pricingOperations } from './routes.ts';
import { PRICING_ERROR_DOCS } from './errors.ts';
import { serviceKey } from '../../platform/services.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { tariffStore } from './store.ts';
import { compileVersions, unitRatesAt } from './billing.ts';
import type { VersionTerms } from './terms.ts';

/** Stored retail tariffs for other modules (optimisation plans against one). */
export interface RetailTariffRates {
  /**
   * A tariff of the organisation and its import unit rate (p/kWh, VAT inclusive, exact decimal text)
   * at each half hour: null when the organisation has no such tariff; a problem (in words) when a
   * half hour has no rate of the tariff's own (no version in force, or a dynamic tariff).
   */
  unitRates(
    q: Queryable,
    orgId: string,
    tariffId: string,
    starts: readonly number[],
  ): Promise<null | { tariff_id: string; name: string; versions: number[]; rates_p_per_kwh_inc_vat: string[] } | { problem: string }>;
}
export const RETAIL_TARIFFS = serviceKey<RetailTariffRates>('pricing.retailTariffs');

const retailTariffRates: RetailTariffRates = {
  async unitRates(q, orgId, tariffId, starts) {
    const t = await tariffStore.get(q, orgId, tariffId);
    if (!t) return null;
    const rows = await tariffStore.versions(q, orgId, [tariffId]);
    const out = unitRatesAt(
      compileVersions(
        rows.map((r) => ({ version: r.version, effective_from: r.effective_from, effective_to: r.effective_to, terms: r.terms as unknown as VersionTerms })),
      ),
      starts,
    );
    if ('problem' in out) return out;
    return { tariff_id: t.tariff_id, name: t.name, versions: out.versions, rates_p_per_kwh_inc_vat: out.rates };
  },
};

export const pricingModule: ModuleCreate = (deps) => {
  const audit = deps.services.get(AUDIT_LOG);
  const { db, clock, cursors } = deps;
  const library = createLibrary({ db, clock, audit, cursors });
  const tariffs = createTariffs({ db, clock, audit, cursors });
  return {
    tags: {
      charges:
        'The GB charge library (DUoS by time band, fixed and capacity charges, TNUoS, BSUoS, policy costs, CCL, VAT), supply points by MPAN and the pricing engine.',
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
  provides: (_deps, registry) => registry.provide(RETAIL_TARIFFS, retailTariffRates),
  create: pricingModule,
};
