// Market data module: tariff prices, GSP regions, carbon intensity. Other modules use
// MARKET_DATA (prices and carbon through the same cache, one instance). UK time is in src/kit/uk-time.ts.
import type { ModuleCreate, ModuleDefinition } from '../../platform/module.ts';
import { createMarketData, type MarketData } from './service.ts';
import { serviceKey } from '../../platform/services.ts';
import { marketOperations } from './routes.ts';
import { marketConfig } from './config.ts';

/** GB grid carbon intensity for other modules (Scope 2): `deps.services.get(CARBON_INTENSITY)`. */
export const CARBON_INTENSITY = serviceKey<MarketData['carbon']>('market.carbon');
/** The one market-data instance (providers, caches, counters): `deps.services.get(MARKET_DATA)`. */
export const MARKET_DATA = serviceKey<MarketData>('market.data');

export const marketModule: ModuleCreate = (deps) => ({
  tags: {
    market: 'UK half-hourly tariff prices, GSP regions, the next cheap window and GB grid carbon intensity.',
  },
  operations: marketOperations(deps, deps.services.get(MARKET_DATA)),
});

export type { MarketData } from './service.ts';
export type { CarbonService } from './carbon.ts';
export { nextCheapWindow } from './prices.ts';
export { REGIONS, REGION_LETTERS, DEFAULT_REGION, regionOf, type GspRegion } from './regions.ts';
export { priceSlot, intensity } from './routes.ts';
export type { RateRow } from './tariff-provider.ts';
export type { IntensityRow, IndexBand } from './carbon-provider.ts';
export { TARIFF_PROVIDER } from './tariff-provider.ts';
export { CARBON_PROVIDER } from './carbon-provider.ts';

/** This module as the module list names it. */
export const marketDefinition: ModuleDefinition = {
  name: 'market',
  // A demo organisation's reads answer from the sample (realmForId, decision 0486).
  dependsOn: ['orgs'],
  config: marketConfig,
  // One market-data instance (providers, cache) for the module's operations and for others.
  provides: (deps, registry) => {
    const data = createMarketData(deps);
    registry.provide(MARKET_DATA, data);
    registry.provide(CARBON_INTENSITY, data.carbon);
  },
  create: marketModule,
};
