// The market-data module's settings: its two providers (read with the rest at start;
// docs/configuration.md). Timeouts and retries are the service-wide `upstreams` settings.
import type { ConfigSection } from '../../core/config-section.ts';

export interface MarketConfig {
  tariffBaseUrl: string;
  carbonBaseUrl: string;
  /** Agile product whose unit rates are served (tariff code E-1R-<product>-<region>). */
  tariffProductCode: string;
  /** Freshness of a fully published (or past) day of prices, and of a day still being published. */
  tariffCacheTtlSeconds: number;
  tariffUnpublishedTtlSeconds: number;
  /** Freshness of carbon intensity figures (never beyond the end of their half hour). */
  carbonCacheTtlSeconds: number;
}

export const marketConfig: ConfigSection<MarketConfig> = {
  name: 'market',
  read: (r) => ({
    tariffBaseUrl: r.url('TARIFF_API_BASE_URL', ['http:', 'https:'], 'https://api.octopus.energy')!,
    carbonBaseUrl: r.url('CARBON_API_BASE_URL', ['http:', 'https:'], 'https://api.carbonintensity.org.uk')!,
    tariffProductCode: r.pattern('TARIFF_PRODUCT_CODE', 'AGILE-24-10-01', /^[A-Z0-9][A-Z0-9-]{1,63}$/, 'upper-case letters, digits and -'),
    tariffCacheTtlSeconds: r.int('TARIFF_CACHE_TTL_SECONDS', 86_400, 0, 7 * 86_400),
    tariffUnpublishedTtlSeconds: r.int('TARIFF_UNPUBLISHED_TTL_SECONDS', 300, 0, 86_400),
    carbonCacheTtlSeconds: r.int('CARBON_CACHE_TTL_SECONDS', 300, 0, 1800),
  }),
};
