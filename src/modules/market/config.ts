// The market-data module's settings: its two providers (read with the rest at start;
// docs/configuration.md). Timeouts and retries are the service-wide `upstreams` settings.
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const marketConfig = configSection('market', (r) => ({
  tariffBaseUrl: r.url('TARIFF_API_BASE_URL', ['http:', 'https:'], 'https://api.octopus.energy')!,
  carbonBaseUrl: r.url('CARBON_API_BASE_URL', ['http:', 'https:'], 'https://api.carbonintensity.org.uk')!,
  /** Agile product whose unit rates are served (tariff code E-1R-<product>-<region>). */
  tariffProductCode: r.pattern('TARIFF_PRODUCT_CODE', 'AGILE-24-10-01', /^[A-Z0-9][A-Z0-9-]{1,63}$/, 'upper-case letters, digits and -'),
  /** Freshness of a fully published (or past) day of prices, and of a day still being published. */
  tariffCacheTtlSeconds: r.int('TARIFF_CACHE_TTL_SECONDS', 86_400, 0, 7 * 86_400),
  tariffUnpublishedTtlSeconds: r.int('TARIFF_UNPUBLISHED_TTL_SECONDS', 300, 0, 86_400),
  /** Freshness of carbon intensity figures (never beyond the end of their half hour). */
  carbonCacheTtlSeconds: r.int('CARBON_CACHE_TTL_SECONDS', 300, 0, 1800),
}));

export type MarketConfig = SettingsOf<typeof marketConfig>;
