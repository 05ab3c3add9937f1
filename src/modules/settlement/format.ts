// The published format of a settlement receipt and of a chain checkpoint (docs/settlement.md).
// The signed bytes are the canonical JSON (RFC 8785) of the body, UTF-8; the receipt hash is their
// SHA-256 in lower-case hex and the next receipt's prev_hash. Anyone holding a receipt and the
// published keys can check it with an Ed25519 library and any JCS implementation.
import { createHash, sign, type KeyObject } from 'node:crypto';
import { CANONICAL_MAX_DEPTH, canonicalJson } from '../../kit/canonical-json.ts';

export const RECEIPT_TYPE = 'settlement_receipt';
export const CHECKPOINT_TYPE = 'settlement_checkpoint';
export const FORMAT_VERSION = 1;
/** prev_hash of seq 1: there is no previous receipt. */
export const GENESIS_HASH = '0'.repeat(64);

export const DIRECTIONS = ['turn_up', 'turn_down'] as const;
export const SOURCE_BASES = ['measured', 'calculated'] as const;

/** What a receipt records. Every member is signed. */
export interface ReceiptBody {
  type: typeof RECEIPT_TYPE;
  version: typeof FORMAT_VERSION;
  receipt_id: string;
  organisation_id: string;
  seq: number;
  prev_hash: string;
  site_id: string;
  asset_id: string;
  reference: string | null;
  period_start: string;
  period_end: string;
  direction: (typeof DIRECTIONS)[number];
  /** Whole watt-hours: exact, no binary fractions in a record of delivery. */
  delivered_wh: number;
  source_basis: (typeof SOURCE_BASES)[number];
  issued_at: string;
  kid: string;
}

/** The signed head of an organisation's chain: a verifier compares the last receipt with it. */
export interface CheckpointBody {
  type: typeof CHECKPOINT_TYPE;
  version: typeof FORMAT_VERSION;
  organisation_id: string;
  seq: number;
  head_hash: string;
  issued_at: string;
  kid: string;
}

export interface Signed {
  signed_body: string;
  signature: string;
  hash: string;
}

export const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Canonical bytes, their Ed25519 signature (base64url, no padding) and their SHA-256 (any signed
 * record of the service: settlement receipts and checkpoints, fleet savings statements). */
export function signBody(body: object, privateKey: KeyObject): Signed {
  const signed_body = canonicalJson(body, { maxDepth: CANONICAL_MAX_DEPTH });
  return {
    signed_body,
    signature: sign(null, Buffer.from(signed_body, 'utf8'), privateKey).toString('base64url'),
    hash: sha256Hex(signed_body),
  };
}

/** The signature block a signed record's view shows, in this order (receipts, checkpoints, fleet savings statements). */
export function signatureMembers(kid: string, signature: string, signedBody: string) {
  return { kid, signature_algorithm: 'Ed25519' as const, signature, signed_body: signedBody };
}

/** Instants in receipts: UTC, whole seconds or milliseconds, always with Z. */
export function isoInstant(d: Date | string | number): string {
  return new Date(d).toISOString().replace('.000Z', 'Z');
}

/** Whole watt-hours as a kWh decimal string (1234 -> "1.234"); exact, never a float. */
export function whToKwh(wh: number): string {
  const sign = wh < 0 ? '-' : '';
  const abs = String(Math.abs(wh)).padStart(4, '0');
  return `${sign}${abs.slice(0, -3)}.${abs.slice(-3)}`;
}
