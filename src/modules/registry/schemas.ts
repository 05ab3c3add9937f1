// Request and response schemas of the twin (v1) and registry (v2) operations.
import { Type, type Static, type TSchema } from 'typebox';
import { Nullable, Timestamp, Component } from '../../platform/schema-kit.ts';
import { ASSET_CLASSES, ASSET_ID_PATTERN, FRESHNESS_BANDS, REPORTED_SOURCES } from './vocabulary.ts';
import { ReadingValueProperties } from '../telemetry/index.ts';

export const AssetId = Type.String({
  pattern: ASSET_ID_PATTERN,
  description: 'Unique within the organisation; letters, digits and . _ : @ + - (1 to 128 characters, starting with a letter or digit).',
});
export const SiteId = Type.String({
  minLength: 1,
  maxLength: 200,
  // No control character anywhere: a site id is written into e-mail subjects and lines (issue 35).
  pattern: '^[^/\\s](?:[^/\\u0000-\\u001f\\u007f]*[^/\\s])?$',
  description: "The caller's own free-form site identifier (no '/', no control characters such as CR or LF, no leading or trailing space).",
});
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const TypeName = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: 'Free-form asset type as the caller names it' });
const Details = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description: 'Any JSON object, stored verbatim' });
export const AssetClassSchema = Type.Enum([...ASSET_CLASSES], { description: 'Registry asset class (see the vocabulary)' });
export const FreshnessSchema = Type.Enum([...FRESHNESS_BANDS], { description: 'Freshness band of the newest stored record' });
export const SourceSchema = Type.Enum([...REPORTED_SOURCES]);

export const TwinAsset = Component(
  'TwinAsset',
  Type.Object({
    asset_id: Type.String(),
    site_id: Type.String(),
    type: Type.String(),
    name: Type.String(),
    details: Details,
    asset_class: Nullable(Type.String(), 'Registry class; null when the type names no class (unclassified)'),
    parent_asset_id: Nullable(Type.String(), 'Upstream asset in the single-line tree; null at the top'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);

export const TwinCreateBody = Type.Object(
  {
    asset_id: Type.Optional(AssetId),
    site_id: SiteId,
    type: TypeName,
    name: Name,
    details: Type.Optional(Details),
  },
  { additionalProperties: false },
);

export const TwinUpdateBody = Type.Object(
  { name: Type.Optional(Name), details: Type.Optional(Details) },
  { additionalProperties: false, minProperties: 1, description: 'Partial: name and/or details; details replaces the stored object' },
);

export const AssetParams = Type.Object({ asset_id: Type.String({ minLength: 1, maxLength: 128 }) });
export const SiteParams = Type.Object({ site_id: Type.String({ minLength: 1, maxLength: 200 }) });

const Reporting = {
  origin: Type.Enum(['twin', 'registry', 'import', 'onboarding'], { description: 'How the record was made (onboarding: created from a site template)' }),
  freshness: FreshnessSchema,
  connectivity: Type.Enum(['online', 'offline', 'never_reported'], {
    description: 'online: live or recent; offline: stale or silent; never_reported: no record',
  }),
  last_reported_at: Nullable(Timestamp, 'Time (ts) of the newest stored record; null when none'),
  last_reported_source: Nullable(SourceSchema, 'Source of that record; null when none'),
};

export const RegistryAsset = Component('Asset', Type.Object({ ...TwinAsset.properties, ...Reporting }));

const Latest = Type.Object({
  ts: Timestamp,
  received_at: Timestamp,
  source: SourceSchema,
  ...ReadingValueProperties,
});

export const RegistryAssetDetail = Component(
  'AssetDetail',
  Type.Object({
    ...RegistryAsset.properties,
    children: Type.Array(Type.String(), { description: 'Ids of the assets directly below this one' }),
    latest: Nullable(Latest, 'The newest stored record; null when none'),
    posture: Type.Object(
      {
        state: Type.Enum(['ok', 'attention', 'unknown'], {
          description: 'ok: reporting, no finding; unknown: nothing reported yet and no finding; attention: anything else',
        }),
        reasons: Type.Array(
          Type.Object({
            code: Type.String({
              description: 'never_reported, stale, silent, status_fault, or a topology finding code (orphan, disallowed_parent, cycle, unclassified)',
            }),
            message: Type.String(),
          }),
        ),
      },
      { description: 'Whether the asset needs attention, and why' },
    ),
  }),
);

export const RegisterBody = Type.Object(
  {
    asset_id: Type.Optional(AssetId),
    site_id: SiteId,
    asset_class: AssetClassSchema,
    type: Type.Optional(TypeName),
    name: Name,
    details: Type.Optional(Details),
    parent_asset_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }))),
  },
  { additionalProperties: false },
);

export const PatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    type: Type.Optional(TypeName),
    details: Type.Optional(Details),
    asset_class: Type.Optional(AssetClassSchema),
    site_id: Type.Optional(SiteId),
    parent_asset_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 128 }), 'null unlinks (the asset becomes a root)')),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description:
      'Edit (name, type, details, asset_class), move (site_id: the asset moves with everything below it; its parent is cleared unless parent_asset_id names one at the new site) or re-link (parent_asset_id).',
  },
);

export const ListQuery = Type.Object({
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  asset_class: Type.Optional(Type.Enum([...ASSET_CLASSES, 'unclassified'])),
  type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  freshness: Type.Optional(FreshnessSchema),
  parent_asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});

const Counts = (keys: readonly string[]) => Type.Object(Object.fromEntries(keys.map((k) => [k, Type.Integer()])));

export const SitesResponse = Type.Object({
  sites: Type.Array(
    Type.Object({
      site_id: Type.String(),
      asset_count: Type.Integer({ description: 'Registered assets' }),
      unregistered_devices: Type.Integer({ description: 'Devices with stored telemetry naming the site in raw site_ref, but no registry record' }),
      by_class: Counts([...ASSET_CLASSES, 'unclassified']),
      freshness: Counts(FRESHNESS_BANDS),
      last_reported_at: Nullable(Timestamp),
      topology_errors: Type.Integer(),
      topology_warnings: Type.Integer(),
    }),
  ),
});

const FindingSchema = Type.Object({
  code: Type.Enum(['missing_meter', 'unclassified', 'orphan', 'disallowed_parent', 'cycle']),
  severity: Type.Enum(['error', 'warning']),
  asset_id: Nullable(Type.String()),
  message: Type.String(),
});

export const TopologyResponse = Type.Object({
  site_id: Type.String(),
  asset_count: Type.Integer(),
  valid: Type.Boolean({ description: 'True when no finding has severity error' }),
  lines: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      parent_asset_id: Nullable(Type.String()),
      depth: Type.Integer({ description: '0 at the top' }),
      children: Type.Array(Type.String()),
      name: Type.String(),
      type: Type.String(),
      asset_class: Nullable(Type.String()),
      freshness: FreshnessSchema,
      findings: Type.Array(Type.String(), { description: 'Codes of the findings about this asset' }),
    }),
    {
      description: 'The tree depth first: each top asset followed by everything below it; assets on a parent cycle come last. Every asset appears once.',
    },
  ),
  findings: Type.Array(FindingSchema),
});

/** A body that may be omitted: absent (null) and `{...}` are both accepted. */
function optionalBody<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...(schema as object), type: ['object', 'null'] });
}

export const ImportBody = optionalBody(
  Type.Object(
    {
      asset_ids: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
          minItems: 1,
          maxItems: 1000,
          description:
            'Import exactly these devices to this site (including devices without site_ref); default: every unregistered device whose raw site_ref is the site',
        }),
      ),
    },
    { additionalProperties: false, description: 'Optional' },
  ),
);

export const ImportResponse = Type.Object({
  site_id: Type.String(),
  imported: Type.Array(TwinAsset),
  imported_count: Type.Integer(),
  skipped: Type.Array(
    Type.Object({
      asset_id: Type.String(),
      reason: Type.Enum(['already_registered', 'no_telemetry', 'other_site', 'invalid_asset_id']),
    }),
  ),
  unplaced_devices: Type.Integer({ description: 'Unregistered devices with no site_ref: name them in asset_ids to import them' }),
});

const ClassVocab = Type.Object({
  asset_class: AssetClassSchema,
  label: Type.String(),
  description: Type.String(),
  allowed_parents: Type.Array(AssetClassSchema),
  root_allowed: Type.Boolean(),
  counts_as_meter: Type.Boolean(),
  type_aliases: Type.Array(Type.String(), { description: 'Free-form types (normalised: lower case, _ for space and -) that map to the class' }),
});

export const VocabularyResponse = Type.Object({
  asset_classes: Type.Array(ClassVocab),
  freshness_bands: Type.Array(Type.Object({ band: FreshnessSchema, max_age_seconds: Nullable(Type.Integer()), description: Type.String() })),
  freshness_method: Type.String(),
  connectivity: Type.Array(Type.Object({ value: Type.String(), description: Type.String() })),
  sources: Type.Array(Type.Object({ source: SourceSchema, description: Type.String() })),
  topology_findings: Type.Array(Type.Object({ code: Type.String(), severity: Type.Enum(['error', 'warning']), description: Type.String() })),
});
