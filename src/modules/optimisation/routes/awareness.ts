// Awareness operations (endpoints.md 4.6): layers and a shadow plan; nothing is sent (rule 8).
import { BEARER, withDefaults, type Operation } from '../../../platform/operation.ts';
import { queryTo, bodyTo } from '../../../platform/resource.ts';
import type { Awareness } from '../awareness.ts';
import { MONEY_METHOD, SCHEDULE_METHOD } from '../schedule.ts';
import * as S from '../schemas.ts';

const tags = ['awareness'];
const live = 'live' as const;
const A = '/api/optimiser/v2x/ai-brain/awareness';

const op = withDefaults({ tags, status: live, access: BEARER.read });

export function awarenessOperations(a: Awareness): Operation[] {
  return [
    op({
      operationId: 'getAwarenessCatalogue',
      method: 'GET',
      path: `${A}/catalogue`,
      summary: 'The awareness layers',
      description: 'Prices, carbon, site forecast, grid constraints, flexibility tenders and device availability: where each comes from and its fallback.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: S.Catalogue } },
      handler: async () => a.catalogue(),
    }),
    op({
      operationId: 'getAwarenessLayers',
      method: 'GET',
      path: `${A}/layers`,
      summary: 'Status of each layer now',
      description: 'Each layer `live`, `fallback` or `missing` with why; the site layers need `site_id` (missing without it). 404 `Site not found`.',
      dataBasis: {
        basis: 'calculated',
        method:
          'Each source asked now: prices and carbon from the market adapter, the forecast from stored history, constraints from configuration, availability from the registry freshness.',
      },
      schema: queryTo(S.LayersQuery, S.Layers),
      handler: async ({ ctx, query }) => a.layers(ctx, query),
    }),
    op({
      operationId: 'getLatestAwarenessPlan',
      method: 'GET',
      path: `${A}/plan/latest`,
      summary: 'The latest shadow plan',
      description: "The organisation's most recent shadow plan, as recorded. 404 `No plan yet`.",
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: S.ShadowPlan } },
      handler: async ({ ctx }) => a.latest(ctx),
    }),
    op({
      operationId: 'getAwarenessSettings',
      method: 'GET',
      path: `${A}/settings`,
      summary: 'Awareness settings',
      description: 'Default region, horizon, fallback price and freshness thresholds; shadow_only is always true.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: S.Settings } },
      handler: async () => a.settings(),
    }),
    op({
      operationId: 'getAwarenessGrid',
      method: 'GET',
      path: `${A}/grid`,
      summary: 'Grid view of a site',
      description: "The site's import limit against its forecast peak import over the horizon. 404 `Site not found`.",
      dataBasis: { basis: 'forecast', method: "The site's forecast load − generation ÷ 0.5 h against the configured import limit." },
      schema: queryTo(S.GridQuery, S.Grid),
      handler: async ({ ctx, query }) => a.grid(ctx, query),
    }),
    op({
      operationId: 'createAwarenessPlan',
      method: 'POST',
      path: `${A}/plan`,
      summary: 'Compute a shadow plan (never sent)',
      description:
        "Plans the site's configured flexible assets over the layers as they stand (fallbacks where a layer is not live) and records the plan. Shadow only: nothing is sent to any device or market. 404 `Site not found`.",
      access: BEARER.configure,
      dataBasis: { basis: 'calculated', method: `${SCHEDULE_METHOD} ${MONEY_METHOD}` },
      schema: bodyTo(S.PlanBody, S.ShadowPlan),
      handler: async ({ ctx, body }) => a.plan(ctx, body),
    }),
  ];
}
