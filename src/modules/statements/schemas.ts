// TypeBox schemas of the fleet savings statement operations: what the OpenAPI document publishes.
import { Type } from 'typebox';
import { PublicKeySchema as PublicKey } from '../esg/index.ts';
import { Nullable, Component, CursorParam, LimitParam } from '../../platform/schema-kit.ts';

const Hash = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });
const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f]*$', description });
const Kwh = (description: string) => Type.String({ pattern: '^-?\\d+\\.\\d{3}$', description });

export const SiteParams = Type.Object({ site_id: Id('The site (as the registry names it)') });
export const BaselineParams = Type.Object({ baseline_id: Id('The baseline’s id') });
export const StatementParams = Type.Object({ statement_id: Id('The statement’s id') });
export const HashParams = Type.Object({ statement_hash: Hash('The statement’s hash: lower-case hex SHA-256 of its signed body, as printed on it') });

export const ProposeBody = Type.Object(
  {
    reference_from: Day('First UK day of the reference period the baseline rests on'),
    reference_to: Day('Last UK day of the reference period (inclusive); ended, at most 366 days after reference_from'),
    method: Type.Optional(
      Type.Literal('reference_period_mean_daily_import', {
        description: 'The baseline method; the one offered: the mean daily grid import over the reference period',
      }),
    ),
    tariff_pence_per_kwh: Type.String({
      pattern: '^\\d{1,6}(\\.\\d{1,4})?$',
      description: 'The agreed unit rate savings are priced at, pence per kWh (up to 4 decimals)',
    }),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Why this reference period and rate (shown on statements’ baseline page)' })),
  },
  { additionalProperties: false },
);

export const WithdrawBody = Type.Object(
  { reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500, description: 'Why the baseline is withdrawn (recorded)' })) },
  { additionalProperties: false },
);

export const IssueBody = Type.Object(
  {
    baseline_id: Id('An agreed baseline of this site'),
    period_from: Day('First UK day of the statement period'),
    period_to: Day('Last UK day of the statement period (inclusive); ended, at most 366 days after period_from'),
  },
  { additionalProperties: false },
);

export const ListQuery = Type.Object(
  {
    site_id: Type.Optional(Id('Only this site’s statements')),
    limit: Type.Optional(LimitParam({ default: 50, max: 200 })),
    cursor: Type.Optional(CursorParam),
  },
  { additionalProperties: false },
);

const BaselineFigures = Type.Object({
  reference_days: Type.Integer({ description: 'UK days in the reference period' }),
  days_with_data: Type.Integer({ description: 'Of those, the days the energy model holds data for (the mean divides by these)' }),
  half_hours: Type.Integer({ description: 'Half hours with data in those days' }),
  complete_half_hours: Type.Integer({ description: 'Half hours every expected asset reported' }),
  measured_half_hours: Type.Integer({ description: 'Half hours whose import was measured, not derived' }),
  reference_import_kwh: Kwh('Grid import over the days with data'),
  mean_daily_import_kwh: Kwh('reference_import_kwh ÷ days_with_data, to the watt-hour'),
  data_basis: Type.Union([Type.Literal('measured'), Type.Literal('calculated')], {
    description: 'measured when every half hour was measured; calculated otherwise',
  }),
});

export const Baseline = Component(
  'FleetBaseline',
  Type.Object({
    baseline_id: Type.String(),
    site_id: Type.String(),
    status: Type.Union([Type.Literal('proposed'), Type.Literal('agreed'), Type.Literal('withdrawn')], {
      description: 'proposed → agreed (frozen) or withdrawn (can no longer be agreed)',
    }),
    method: Type.String(),
    method_description: Type.String(),
    reference_from: Type.String(),
    reference_to: Type.String(),
    figures: BaselineFigures,
    tariff_pence_per_kwh: Type.String({ description: 'Pence per kWh, 4 decimals' }),
    note: Nullable(Type.String()),
    proposed_by: Nullable(Type.String()),
    proposed_at: Type.String({ format: 'date-time' }),
    agreed_by: Nullable(Type.String()),
    agreed_at: Nullable(Type.String({ format: 'date-time' })),
    withdrawn_by: Nullable(Type.String()),
    withdrawn_at: Nullable(Type.String({ format: 'date-time' })),
    withdrawn_reason: Nullable(Type.String()),
  }),
);

export const BaselineList = Type.Object({ site_id: Type.String(), baselines: Type.Array(Baseline, { description: 'Newest first' }) });

const Figure = (description: string) =>
  Type.Object({
    value: Type.String({ description }),
    data_basis: Type.String({ description: 'What the figure rests on' }),
    method: Type.String({ description: 'How it is calculated' }),
  });

const StatementBaseline = Type.Object(
  {
    baseline_id: Type.String(),
    method: Type.String(),
    reference_from: Type.String(),
    reference_to: Type.String(),
    mean_daily_import_kwh: Type.String(),
    tariff_pence_per_kwh: Type.String(),
    agreed_at: Type.String({
      format: 'date-time',
      description: "When the baseline was agreed, as signed (UTC, Z; milliseconds only when not zero, the receipts' instant format)",
    }),
    agreed_by: Nullable(Type.String()),
  },
  { description: 'The agreed baseline as it stood when the statement was issued (signed with it)' },
);

const Savings = Type.Object({
  kwh: Figure('Energy saved against the baseline, kWh (negative: more was imported)'),
  gbp: Figure('Money saved at the agreed tariff, pounds'),
  co2e_kg: Type.Object({
    value: Type.String({ description: 'Avoided emissions, kg CO2e (location-based)' }),
    data_basis: Type.String(),
    method: Type.String(),
    factors: Type.Array(Type.Object({ year: Type.Integer(), kg_per_kwh: Type.String(), source: Type.String() }), { description: 'The DESNZ factors used' }),
  }),
});

export const Statement = Component(
  'FleetStatement',
  Type.Object({
    statement_id: Type.String(),
    statement_hash: Hash('SHA-256 (hex) of the UTF-8 bytes of signed_body: the public verification handle'),
    organisation_id: Type.String(),
    site_id: Type.String(),
    period_from: Type.String(),
    period_to: Type.String(),
    baseline: StatementBaseline,
    days: Type.Integer({ description: 'UK days in the period' }),
    days_with_data: Type.Integer({ description: 'Days the energy model holds data for (the figures cover these)' }),
    expected_import_kwh: Type.String({ description: 'Baseline mean daily import × days_with_data' }),
    actual_import_kwh: Type.String({ description: 'Grid import of those days' }),
    savings: Savings,
    issued_at: Type.String({ format: 'date-time' }),
    kid: Type.String({ description: 'The published key that signed it (GET /api/esg/keys)' }),
    signature_algorithm: Type.Literal('Ed25519'),
    signature: Type.String({ description: 'Ed25519 signature of signed_body, base64url without padding' }),
    signed_body: Type.String({ description: 'The canonical JSON (RFC 8785) that was signed: the statement of record' }),
    verify_path: Type.String({ description: 'Public verification address of this statement (no credential)' }),
  }),
);

export const StatementPage = Type.Object({
  statements: Type.Array(Statement, { description: 'Newest first' }),
  next_cursor: Nullable(Type.String()),
  has_more: Type.Boolean(),
});

const Problem = Type.Object({
  code: Type.String({
    description:
      'malformed_body, non_canonical_body, invalid_body, unknown_key, malformed_signature, non_canonical_signature, bad_signature, hash_mismatch, not_recorded, signature_mismatch',
  }),
  message: Type.String(),
});

export const VerifyByHash = Type.Object({
  valid: Type.Boolean({ description: 'The stored statement’s signature verifies with its published key and its bytes hash to the address' }),
  statement_hash: Type.String(),
  recorded: Type.Boolean(),
  problems: Type.Array(Problem),
  statement: Type.Object({}, { additionalProperties: true, description: 'The signed body, parsed: exactly what the statement says, nothing more' }),
  signed_body: Type.String(),
  signature: Type.String(),
  signature_algorithm: Type.Literal('Ed25519'),
  key: Nullable(PublicKey),
  verified_at: Type.String({ format: 'date-time' }),
});

export const VerifyBody = Type.Object(
  {
    signed_body: Type.String({ minLength: 1, maxLength: 65_536, description: 'The statement’s signed_body exactly as issued' }),
    signature: Type.String({ minLength: 1, maxLength: 200, description: 'Its signature' }),
    statement_hash: Type.Optional(Hash('The hash printed on the statement; compared when given')),
  },
  { additionalProperties: false },
);

export const VerifyResult = Type.Object({
  detail: Type.Optional(Type.String({ description: 'On a refused copy (422): "Statement does not verify: " and the failed checks' })),
  valid: Type.Boolean({ description: 'True only when the copy is canonical, signed by a published key, and is the statement the service issued' }),
  statement_hash: Type.String({ description: 'SHA-256 of the presented signed_body' }),
  recorded: Type.Boolean({ description: 'The service issued a statement with exactly these bytes' }),
  problems: Type.Array(Problem, { description: 'What failed; empty when valid' }),
  verified_at: Type.String({ format: 'date-time' }),
});
