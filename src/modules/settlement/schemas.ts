// TypeBox schemas of the settlement operations: what the OpenAPI document publishes.
import { Type } from 'typebox';
import { PublicKeySchema as PublicKey } from '../esg/index.ts';
import { DIRECTIONS, SOURCE_BASES } from './format.ts';
import { Nullable, Component } from '../../platform/schema-kit.ts';

const Z = (description: string) => Type.String({ format: 'date-time', description });
const Hash = (description: string) => Type.String({ pattern: '^[0-9a-f]{64}$', description });
const UTC = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|\\+00:00)$';
const Ref = (description: string) => Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f]*$', description });

export const ReceiptParams = Type.Object({ receipt_id: Type.String({ minLength: 1, maxLength: 100, description: 'The receipt’s id' }) });
export const HashParams = Type.Object({ receipt_hash: Hash('The receipt’s hash (lower-case hex SHA-256 of its signed body)') });

export const IssueBody = Type.Object(
  {
    site_id: Ref('The site where the energy was delivered'),
    asset_id: Ref('The asset (or VPP enrolment reference) that delivered it'),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Your own reference: a dispatch, contract or instruction id' })),
    period_start: Type.String({ pattern: UTC, description: 'Start of the delivery period, UTC (Z)' }),
    period_end: Type.String({
      pattern: UTC,
      description: 'End of the delivery period (exclusive), UTC; after period_start, at most 31 days later, not in the future',
    }),
    direction: Type.Enum([...DIRECTIONS], { description: 'turn_up: demand increased or generation reduced; turn_down: the opposite' }),
    delivered_wh: Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description: 'Energy delivered in the period, whole watt-hours' }),
    source_basis: Type.Enum([...SOURCE_BASES], {
      description: 'measured: read from a meter or device; calculated: derived (then not a measurement, and not for a financial claim)',
    }),
  },
  { additionalProperties: false },
);

export const Receipt = Component(
  'SettlementReceipt',
  Type.Object({
    receipt_id: Type.String(),
    seq: Type.Integer({ minimum: 1, description: 'Position in the organisation’s chain, from 1, without gaps' }),
    receipt_hash: Hash('SHA-256 (hex) of the UTF-8 bytes of signed_body; the next receipt’s prev_hash'),
    prev_hash: Hash('receipt_hash of the previous receipt; 64 zeros for seq 1'),
    organisation_id: Type.String(),
    site_id: Type.String(),
    asset_id: Type.String(),
    reference: Nullable(Type.String()),
    period_start: Z('Start of the delivery period, UTC'),
    period_end: Z('End of the delivery period (exclusive), UTC'),
    direction: Type.Enum([...DIRECTIONS]),
    delivered_wh: Type.Integer({ description: 'Whole watt-hours (signed)' }),
    delivered_kwh: Type.String({ description: 'The same energy in kWh as an exact decimal string (not signed; derived from delivered_wh)' }),
    source_basis: Type.Enum([...SOURCE_BASES]),
    issued_at: Z('When the receipt was signed, UTC'),
    kid: Type.String({ description: 'The signing key; published at GET /api/vpp/vpp/settle/keys and GET /api/esg/keys' }),
    signature_algorithm: Type.Literal('Ed25519'),
    signature: Type.String({ description: 'Ed25519 signature over the UTF-8 bytes of signed_body, base64url without padding' }),
    signed_body: Type.String({ description: 'The signed bytes: RFC 8785 canonical JSON of the receipt body (see docs/settlement.md)' }),
    shared: Type.Boolean({ description: 'Published by its hash for counterparty verification' }),
    shared_at: Nullable(Z('When it was shared')),
    public_path: Nullable(Type.String({ description: 'Where a counterparty reads it without a credential, while shared' })),
  }),
);

export const ReceiptList = Type.Object({ receipts: Type.Array(Receipt), next_cursor: Nullable(Type.String()), has_more: Type.Boolean() });

export const ListFilterProps = {
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  shared: Type.Optional(Type.Boolean({ description: 'Only shared (true) or only unshared (false) receipts' })),
};

export const ListQuery = Type.Object({
  ...ListFilterProps,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 512 })),
});

export const Checkpoint = Type.Object(
  {
    organisation_id: Type.String(),
    seq: Type.Integer({ description: 'seq of the last receipt' }),
    head_hash: Hash('receipt_hash of the last receipt'),
    issued_at: Z('When the checkpoint was signed (with the last receipt)'),
    kid: Type.String(),
    signature_algorithm: Type.Literal('Ed25519'),
    signature: Type.String({ description: 'Ed25519 over the UTF-8 bytes of signed_body, base64url' }),
    signed_body: Type.String({ description: 'Canonical JSON of {head_hash, issued_at, kid, organisation_id, seq, type: "settlement_checkpoint", version: 1}' }),
  },
  { description: 'The signed head of the organisation’s chain; null before the first receipt' },
);

const Found = Type.Object({ code: Type.String(), message: Type.String() });
export const Problem = Type.Object({
  index: Type.Integer({ description: 'Position in the chain as checked (0-based); the chain length for a receipt missing at the end' }),
  seq: Nullable(Type.Integer()),
  code: Type.String({
    description:
      'malformed_body, non_canonical_body, invalid_body, unknown_key, malformed_signature, non_canonical_signature, bad_signature, ' +
      'hash_mismatch, foreign_receipt, seq_gap, prev_hash_mismatch, truncated, head_mismatch, checkpoint_mismatch',
  }),
  message: Type.String(),
});

export const ReceiptCheck = Type.Object({
  receipt_id: Type.String(),
  seq: Type.Integer(),
  receipt_hash: Type.String(),
  kid: Type.String(),
  valid: Type.Boolean(),
  problems: Type.Array(Found),
  verified_at: Z('When the check ran'),
});

export const ChainCheck = Type.Object({
  organisation_id: Type.String(),
  valid: Type.Boolean({ description: 'Every receipt verifies, links and continues, and the end matches the signed checkpoint' }),
  checked: Type.Integer(),
  first_bad_index: Nullable(Type.Integer()),
  first_bad_seq: Nullable(Type.Integer()),
  problems: Type.Array(Problem, { description: 'At most 100, by index' }),
  checkpoint: Nullable(Checkpoint),
  checkpoint_valid: Nullable(Type.Boolean()),
  checkpoint_problems: Type.Array(Found),
  verified_at: Z('When the check ran'),
});

const PresentedReceipt = Type.Object(
  {
    signed_body: Type.String({ minLength: 1, maxLength: 4096, description: 'The receipt’s signed_body exactly as received' }),
    signature: Type.String({ minLength: 1, maxLength: 200 }),
    receipt_hash: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Compared with the SHA-256 of signed_body when given' })),
  },
  { additionalProperties: true, description: 'A receipt as served (other members are ignored)' },
);

export const VerifyBody = Type.Object(
  {
    receipts: Type.Array(PresentedReceipt, { minItems: 1, maxItems: 1000, description: 'One receipt, or a run of one organisation’s chain in seq order' }),
    checkpoint: Type.Optional(
      Type.Object(
        { signed_body: Type.String({ minLength: 1, maxLength: 4096 }), signature: Type.String({ minLength: 1, maxLength: 200 }) },
        { additionalProperties: true, description: 'A checkpoint as published; the run must reach it' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const VerifyResult = Type.Object({
  valid: Type.Boolean(),
  checked: Type.Integer(),
  first_bad_index: Nullable(Type.Integer()),
  problems: Type.Array(Problem),
  checkpoint_valid: Nullable(Type.Boolean()),
  checkpoint_problems: Type.Array(Found),
  receipts: Type.Array(
    Type.Object({
      index: Type.Integer(),
      seq: Nullable(Type.Integer()),
      receipt_hash: Type.String({ description: 'SHA-256 of the presented signed_body' }),
      valid: Type.Boolean(),
      recorded: Type.Boolean({ description: 'Your organisation holds a receipt with exactly these signed bytes' }),
    }),
  ),
});

export const ReconQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date-time', description: 'Receipts whose period starts at or after this (default: 30 days before to)' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'and before this (default: now); window at most 366 days' })),
  site_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  asset_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const ReconLine = Type.Object({
  site_id: Type.String(),
  asset_id: Type.String(),
  direction: Type.String(),
  receipts: Type.Integer(),
  receipted_wh: Type.String({ description: 'Sum of delivered_wh, exact decimal integer' }),
  receipted_kwh: Type.String({ description: 'The same in kWh, exact decimal' }),
  first_period_start: Z('Earliest period start'),
  last_period_end: Z('Latest period end'),
  covered_seconds: Type.Number({ description: 'Time between them covered by at least one receipt' }),
  uncovered_seconds: Type.Number({ description: 'Time between them covered by none (a gap)' }),
  overlapping_receipts: Type.Integer({ description: 'Receipts whose period overlaps an earlier one: energy possibly receipted twice' }),
  overlapping_receipt_ids: Type.Array(Type.String(), { description: 'The first 20 of them' }),
  shared_receipts: Type.Integer(),
  findings: Type.Array(Type.Enum(['overlap', 'gap'])),
});

export const Reconciliation = Type.Object({
  from: Z('Window start'),
  to: Z('Window end (exclusive)'),
  lines: Type.Array(ReconLine, { description: 'One per site, asset and direction' }),
  totals: Type.Object({
    lines: Type.Integer(),
    receipts: Type.Integer(),
    receipted_wh: Type.String(),
    lines_with_overlaps: Type.Integer(),
    lines_with_gaps: Type.Integer(),
  }),
  telemetry_compared: Type.Literal(false, { description: 'Receipts are reconciled with each other only; no telemetry is compared (decision 0113)' }),
});

export const KeysResponse = Type.Object({ keys: Type.Array(PublicKey), checkpoint: Nullable(Checkpoint) });

export const PublicReceipt = Type.Object({ receipt: Receipt, key: Nullable(PublicKey) });
