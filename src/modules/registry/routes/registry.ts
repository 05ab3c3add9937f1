// Registry v2: /api/twin/registry/... (vocabulary, sites, assets, topology, import).
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../../platform/operation.ts';
import { type ResourceHead, resourceOps, paramsTo } from '../../../platform/resource.ts';
import type { RegistryService } from '../service.ts';
import {
  AssetParams,
  ImportBody,
  ImportResponse,
  ListQuery,
  PatchBody,
  RegisterBody,
  RegistryAsset,
  RegistryAssetDetail,
  SiteParams,
  SitesResponse,
  TopologyResponse,
  VocabularyResponse,
} from '../schemas.ts';
import { ASSET_CLASSES, BAND_RULES, CLASS_RULES, FRESHNESS_METHOD, REPORTED_SOURCES, SOURCE_DESCRIPTIONS, typeAliases } from '../vocabulary.ts';
import { FINDING_DESCRIPTIONS } from '../topology.ts';
import { ErrorResponse } from '../../../platform/schema-kit.ts';

const tags = ['registry'];
const ASSETS: ResourceHead = { name: 'RegistryAsset', path: '/api/twin/registry/assets', id: 'asset_id', params: AssetParams, item: RegistryAssetDetail };
const freshness = { basis: 'calculated' as const, method: FRESHNESS_METHOD };

const vocabulary = {
  asset_classes: ASSET_CLASSES.map((c) => ({
    asset_class: c,
    label: CLASS_RULES[c].label,
    description: CLASS_RULES[c].description,
    allowed_parents: CLASS_RULES[c].allowedParents,
    root_allowed: CLASS_RULES[c].rootAllowed,
    counts_as_meter: CLASS_RULES[c].meter,
    type_aliases: typeAliases(c),
  })),
  freshness_bands: BAND_RULES.map((b) => ({ band: b.band, max_age_seconds: b.maxAgeSeconds, description: b.description })),
  freshness_method: FRESHNESS_METHOD,
  connectivity: [
    { value: 'online', description: 'Freshness live or recent.' },
    { value: 'offline', description: 'Freshness stale or silent.' },
    { value: 'never_reported', description: 'No record stored.' },
  ],
  sources: REPORTED_SOURCES.map((s) => ({ source: s, description: SOURCE_DESCRIPTIONS[s] })),
  topology_findings: Object.entries(FINDING_DESCRIPTIONS).map(([code, f]) => ({ code, severity: f.severity, description: f.description })),
};

const op = withDefaults({ tags, status: 'live', access: BEARER.read });

export function registryOperations(service: RegistryService) {
  return [
    op({
      operationId: 'getRegistryVocabulary',
      method: 'GET',
      path: '/api/twin/registry/vocabulary',
      summary: 'Asset classes, allowed parents, freshness bands',
      description:
        'The fixed vocabulary of the registry: classes with the classes each may sit under, the freshness bands, the last-reported sources and the topology finding codes.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: VocabularyResponse } },
      handler: async () => vocabulary,
    }),
    op({
      operationId: 'listRegistrySites',
      method: 'GET',
      path: '/api/twin/registry/sites',
      summary: 'Sites with registry counts',
      description:
        'Every site named by a registered asset, or by the raw `site_ref` of a device that reports but is not registered. ' +
        'Counts by class and by freshness band, unregistered devices, and topology finding counts.',
      dataBasis: freshness,
      schema: { response: { 200: SitesResponse } },
      handler: async ({ ctx }) => ({ sites: await service.sites(ctx) }),
    }),
    ...resourceOps(op, ASSETS, {
      list: {
        summary: 'Registered assets, filtered',
        description:
          'Filters combine (and): `site_id`, `asset_class` (or `unclassified`), `type`, `freshness`, `parent_asset_id`. Unpaginated, by site then asset id.',
        dataBasis: freshness,
        query: ListQuery,
        response: Type.Object({ assets: Type.Array(RegistryAsset), count: Type.Integer() }),
        handler: async (ctx, query) => {
          const assets = await service.listAssets(ctx, query);
          return { assets, count: assets.length };
        },
      },
      create: {
        summary: 'Register an asset with its class and place in the tree',
        description:
          '`asset_class` is required; `type` defaults to the class; `asset_id` is generated when absent and is unique within ' +
          'the organisation (409 on a duplicate). `parent_asset_id` must name a registered asset at the same site whose ' +
          'class is an allowed parent (422 otherwise).',
        access: BEARER.configure,
        dataBasis: freshness,
        verb: 'register',
        body: RegisterBody,
        response: RegistryAsset,
        errors: { 409: ErrorResponse },
        handler: (ctx, body) => service.register(ctx, body),
      },
      get: {
        summary: 'One asset with live freshness and posture',
        description:
          'The registry entry with its class, parent and details, the newest reading and its age, and the ' +
          "freshness band the asset's class puts that age in. 404 for an asset of another organisation.",
        dataBasis: freshness,
        handler: (ctx, id) => service.getAsset(ctx, id),
      },
      update: {
        summary: 'Edit, move or re-link an asset',
        description:
          'Edit `name`, `type`, `details`, `asset_class`; move with `site_id` (everything below the asset moves with it; its ' +
          'parent is cleared unless `parent_asset_id` names one at the new site); re-link with `parent_asset_id` (null ' +
          'unlinks). A parent must be registered, at the same site, of an allowed class, and not below the asset (no cycles): ' +
          'otherwise 422. A class change must keep the current parent and children allowed.',
        access: BEARER.configure,
        dataBasis: freshness,
        body: PatchBody,
        handler: (ctx, id, body) => service.patchAsset(ctx, id, body),
      },
      remove: {
        summary: 'Delete a childless asset',
        description: 'Refused with 409 while any asset is linked below it. Stored telemetry is kept.',
        access: BEARER.configure,
        errors: { 409: ErrorResponse },
        handler: (ctx, id) => service.deleteAsset(ctx, id),
      },
    }),
    op({
      operationId: 'getSiteTopology',
      method: 'GET',
      path: '/api/twin/registry/sites/{site_id}/topology',
      summary: 'Single-line tree of a site with validation findings',
      description:
        'Findings: `missing_meter` (warning), `unclassified` (warning), `orphan`, `disallowed_parent`, `cycle` (errors). ' +
        '404 when the organisation has no such site.',
      dataBasis: freshness,
      schema: paramsTo(SiteParams, TopologyResponse),
      handler: async ({ ctx, params }) => service.topology(ctx, params.site_id),
    }),
    op({
      operationId: 'importSiteDevices',
      method: 'POST',
      path: '/api/twin/registry/sites/{site_id}/import-devices',
      summary: 'Register every reporting device with no record',
      description:
        'Telemetry rows carry no site: a device is tied to the site by the `site_ref` key its sender put in the record ' +
        '(raw), read from its newest record. Without a body every unregistered device whose `site_ref` is the site is ' +
        'registered; `asset_ids` imports exactly the devices named (those without `site_ref` too). Class comes from raw ' +
        '`asset_class`, else from raw `asset_type`, `type` or `device_type` through the type aliases; name from raw `name`. ' +
        'Imported assets have no parent. 404 when the site is unknown and nothing names it.',
      access: BEARER.configure,
      schema: { params: SiteParams, body: ImportBody, response: { 200: ImportResponse } },
      handler: async ({ ctx, params, body }) => service.importDevices(ctx, params.site_id, body ?? {}),
    }),
  ];
}
