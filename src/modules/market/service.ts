// Wires the two market-data providers from configuration: one upstream client each (base URL,
// timeout, retries, metrics), the shared response cache, and the price and carbon services; and the
// demo organisations' sample (sample.ts, decision 0486), which never calls a provider.
import type { AppDeps } from '../../platform/module.ts';
import { createUpstreamCache, createUpstreamClient } from '../../infra/upstream/index.ts';
import { createTariffProvider } from './tariff-provider.ts';
import { createCarbonProvider } from './carbon-provider.ts';
import { createPriceService, type PriceService } from './prices.ts';
import { createCarbonService, type CarbonService } from './carbon.ts';
import { createSampleMarket } from './sample.ts';
import { realmForId } from '../orgs/index.ts';

export interface MarketData {
  prices: PriceService;
  carbon: CarbonService;
  productCode: string;
  tariffCode(region: string): string;
  /**
   * The prices and carbon intensity an organisation's answers come from: the providers' for a
   * production organisation; for a demo one (realm `demo`, the realm its answers are labelled by)
   * the sample week shipped with the service, replayed onto the days asked for, never a provider.
   */
  forOrg(orgId: string): { prices: PriceService; carbon: CarbonService; sample: boolean };
}

import { sectionOf } from '../../core/config-section.ts';
import { marketConfig } from './config.ts';

type MarketDeps = Pick<AppDeps, 'config' | 'cache' | 'clock' | 'metrics' | 'log'>;

export function createMarketData(deps: MarketDeps): MarketData {
  const u = { ...deps.config.upstreams, ...sectionOf(deps.config, marketConfig) };
  const common = {
    timeoutMs: u.timeoutMs,
    retries: u.retries,
    retryBaseMs: u.retryBaseMs,
    allowPrivate: deps.config.allowPrivateOutbound,
    metrics: deps.metrics,
  };
  const cache = createUpstreamCache({ cache: deps.cache, clock: deps.clock, namespace: deps.config.namespace, metrics: deps.metrics });
  const tariff = createTariffProvider(createUpstreamClient({ ...common, provider: 'tariff', baseUrl: u.tariffBaseUrl }), u.tariffProductCode);
  const carbon = createCarbonProvider(createUpstreamClient({ ...common, provider: 'carbon', baseUrl: u.carbonBaseUrl }));
  const sample = { ...createSampleMarket(deps.clock), sample: true };
  const data: MarketData = {
    productCode: tariff.productCode,
    tariffCode: tariff.tariffCode,
    forOrg: (orgId) => (realmForId(orgId) === 'demo' ? sample : { prices: data.prices, carbon: data.carbon, sample: false }),
    prices: createPriceService({
      provider: tariff,
      cache,
      clock: deps.clock,
      metrics: deps.metrics,
      log: deps.log,
      completeTtlMs: u.tariffCacheTtlSeconds * 1000,
      pendingTtlMs: u.tariffUnpublishedTtlSeconds * 1000,
    }),
    carbon: createCarbonService({ provider: carbon, cache, clock: deps.clock, log: deps.log, ttlMs: u.carbonCacheTtlSeconds * 1000 }),
  };
  return data;
}
