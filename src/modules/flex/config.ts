// The flexibility module's settings: the two network operators' platforms (read with the rest at
// start; docs/configuration.md). Timeouts and retries are the service-wide `upstreams` settings.
import { configSection, type ConfigReader, type SettingsOf } from '../../core/config-section.ts';

export interface FlexOperatorConfig {
  /** Which of the two operators ('A' = first, 'B' = second) and the variable prefix FLEX_DNO_<slot>_. */
  slot: 'A' | 'B';
  /** The `dno` value callers use. */
  id: string;
  /** The operator's flexibility platform; absent = not wired. */
  baseUrl?: string;
  clientId?: string;
  apiKey?: string;
  /** Offers to this operator must name the tender's id on the platform (the second operator). */
  requiresTenderPlatformId: boolean;
}

function operators(r: ConfigReader): FlexOperatorConfig[] {
  const ops = (['A', 'B'] as const).map((slot) => {
    const p = `FLEX_DNO_${slot}_`;
    const id = r.pattern(`${p}ID`, `dno-${slot.toLowerCase()}`, /^[a-z][a-z0-9_-]{1,31}$/, '2-32 lower-case letters, digits, - or _');
    const baseUrl = r.url(`${p}BASE_URL`, r.nodeEnv === 'production' ? ['https:'] : ['http:', 'https:']);
    const clientId = r.optional(`${p}CLIENT_ID`);
    const apiKey = r.optional(`${p}API_KEY`);
    if (Boolean(clientId) !== Boolean(apiKey)) {
      r.fail(`${p}CLIENT_ID and ${p}API_KEY must be set together`);
    }
    return { slot, id, baseUrl, clientId, apiKey, requiresTenderPlatformId: slot === 'B' };
  });
  if (ops[0].id === ops[1].id) r.fail('FLEX_DNO_A_ID and FLEX_DNO_B_ID must differ');
  return ops;
}

export const flexConfig = configSection('flex', (r) => ({
  /** Freshness of tenders and contracts read from the operators' platforms. */
  cacheTtlSeconds: r.int('FLEX_CACHE_TTL_SECONDS', 60, 0, 3600),
  /** The two network operators, in the spec's order (<DNO_A>, <DNO_B>). */
  operators: operators(r),
}));

export type FlexConfig = SettingsOf<typeof flexConfig>;
