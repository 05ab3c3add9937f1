// Verification of settlement receipts and chains from their published form only (signed bytes,
// signature, published keys): the same checks the service runs on its own store (GET .../verify,
// GET /chain/verify) and on a copy someone presents (POST /verify). Problems are reported by the
// index of the receipt in the order given, first bad index first.
import { verify, type KeyObject } from 'node:crypto';
import { CANONICAL_MAX_DEPTH, canonicalJson } from '../../kit/canonical-json.ts';
import {
  CHECKPOINT_TYPE,
  DIRECTIONS,
  FORMAT_VERSION,
  GENESIS_HASH,
  RECEIPT_TYPE,
  SOURCE_BASES,
  sha256Hex,
  type CheckpointBody,
  type ReceiptBody,
} from './format.ts';

/** The Ed25519 group order: a signature whose S is not below it is not canonical (RFC 8032 5.1.7). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

export type KeyLookup = (kid: string) => KeyObject | undefined;

export interface Presented {
  signed_body: string;
  signature: string;
  /** The hash the holder was given; compared when present. */
  receipt_hash?: string;
}

export interface Problem {
  index: number;
  seq: number | null;
  code: string;
  message: string;
}

type Found = { code: string; message: string };

const HEX64 = /^[0-9a-f]{64}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
const B64URL_SIG = /^[A-Za-z0-9_-]{85}[AQgw]$/; // 64 bytes, no padding, no stray bits

const str = (v: unknown) => typeof v === 'string' && v.length > 0;

const RECEIPT_MEMBERS: Record<keyof ReceiptBody, (v: unknown) => boolean> = {
  type: (v) => v === RECEIPT_TYPE,
  version: (v) => v === FORMAT_VERSION,
  receipt_id: str,
  organisation_id: str,
  seq: (v) => Number.isSafeInteger(v) && (v as number) >= 1,
  prev_hash: (v) => typeof v === 'string' && HEX64.test(v),
  site_id: str,
  asset_id: str,
  reference: (v) => v === null || str(v),
  period_start: (v) => typeof v === 'string' && INSTANT.test(v),
  period_end: (v) => typeof v === 'string' && INSTANT.test(v),
  direction: (v) => (DIRECTIONS as readonly unknown[]).includes(v),
  delivered_wh: (v) => Number.isSafeInteger(v) && (v as number) >= 0,
  source_basis: (v) => (SOURCE_BASES as readonly unknown[]).includes(v),
  issued_at: (v) => typeof v === 'string' && INSTANT.test(v),
  kid: str,
};

const CHECKPOINT_MEMBERS: Record<keyof CheckpointBody, (v: unknown) => boolean> = {
  type: (v) => v === CHECKPOINT_TYPE,
  version: (v) => v === FORMAT_VERSION,
  organisation_id: str,
  seq: (v) => Number.isSafeInteger(v) && (v as number) >= 1,
  head_hash: (v) => typeof v === 'string' && HEX64.test(v),
  issued_at: (v) => typeof v === 'string' && INSTANT.test(v),
  kid: str,
};

function shapeProblem(value: unknown, members: Record<string, (v: unknown) => boolean>): Found | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return { code: 'invalid_body', message: 'The signed body is not a JSON object' };
  const o = value as Record<string, unknown>;
  for (const [k, ok] of Object.entries(members)) {
    if (!(k in o)) return { code: 'invalid_body', message: `The signed body has no ${k}` };
    if (!ok(o[k])) return { code: 'invalid_body', message: `The signed body's ${k} is not valid` };
  }
  const extra = Object.keys(o).find((k) => !(k in members));
  return extra ? { code: 'invalid_body', message: `The signed body has an unknown member ${extra}` } : null;
}

/** Signature encoding, S < L, then Ed25519 over the exact bytes. */
function signatureProblem(signature: string, signedBody: string, key: KeyObject): Found | null {
  if (typeof signature !== 'string' || !B64URL_SIG.test(signature)) {
    return { code: 'malformed_signature', message: 'The signature is not 64 bytes of unpadded base64url' };
  }
  const sig = Buffer.from(signature, 'base64url');
  const s = BigInt(`0x${Buffer.from(sig.subarray(32)).reverse().toString('hex')}`);
  if (s >= L) return { code: 'non_canonical_signature', message: 'The signature’s S is not below the group order' };
  if (!verify(null, Buffer.from(signedBody, 'utf8'), key, sig))
    return { code: 'bad_signature', message: 'The signature does not verify with the key named by kid' };
  return null;
}

/**
 * One signed object on its own: the bytes are JSON, are exactly their canonical form (so no
 * duplicate member, no whitespace, no other number form), have the expected members, name a
 * published key, and carry a canonical signature that verifies.
 */
export function checkSigned<T>(
  p: Presented,
  keyOf: KeyLookup,
  members: Record<string, (v: unknown) => boolean>,
): { body: T | null; hash: string; problems: Found[] } {
  const hash = typeof p.signed_body === 'string' ? sha256Hex(p.signed_body) : '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(p.signed_body);
  } catch {
    return { body: null, hash, problems: [{ code: 'malformed_body', message: 'The signed body is not JSON' }] };
  }
  const problems: Found[] = [];
  let canonical: string | null = null;
  let why = 're-ordered, re-spaced or duplicated members';
  try {
    canonical = canonicalJson(parsed, { maxDepth: CANONICAL_MAX_DEPTH });
  } catch (e) {
    // Too deep, or text with no canonical form (an unpaired surrogate): no JCS library accepts it.
    why = `it has none: ${(e as Error).message}`;
  }
  if (canonical !== p.signed_body) {
    problems.push({ code: 'non_canonical_body', message: `The signed body is not in canonical form (RFC 8785): ${why}` });
  }
  const shape = shapeProblem(parsed, members);
  if (shape) return { body: null, hash, problems: [...problems, shape] };
  const body = parsed as T & { kid: string };
  const key = keyOf(body.kid);
  if (!key) problems.push({ code: 'unknown_key', message: `kid ${body.kid} is not a published key` });
  else {
    const sig = signatureProblem(p.signature, p.signed_body, key);
    if (sig) problems.push(sig);
  }
  if (p.receipt_hash !== undefined && p.receipt_hash !== hash) {
    problems.push({ code: 'hash_mismatch', message: 'receipt_hash is not the SHA-256 of the signed body' });
  }
  return { body, hash, problems };
}

export const checkReceipt = (p: Presented, keyOf: KeyLookup) => checkSigned<ReceiptBody>(p, keyOf, RECEIPT_MEMBERS);
export const checkCheckpoint = (p: Presented, keyOf: KeyLookup) => checkSigned<CheckpointBody>(p, keyOf, CHECKPOINT_MEMBERS);

export interface ChainResult {
  valid: boolean;
  checked: number;
  first_bad_index: number | null;
  problems: Problem[];
}

/**
 * Walks a chain (or a segment of one) in the order given: each receipt on its own, then its
 * organisation, seq continuity and prev_hash link to the one before. `finish` compares the end
 * with a checkpoint, which exposes receipts dropped from the end.
 */
export class ChainVerifier {
  private readonly keyOf: KeyLookup;
  private readonly maxProblems: number;
  private readonly problems: Problem[] = [];
  private readonly seen = new Map<number, { index: number; hash: string }>();
  private org: string | undefined;
  private count = 0;
  private prev: { seq: number; hash: string } | null = null;
  private firstBad: number | null = null;

  constructor(keyOf: KeyLookup, opts: { organisationId?: string; maxProblems?: number } = {}) {
    this.keyOf = keyOf;
    this.org = opts.organisationId;
    this.maxProblems = opts.maxProblems ?? 100;
  }

  private add(index: number, seq: number | null, f: Found) {
    if (this.firstBad === null || index < this.firstBad) this.firstBad = index;
    if (this.problems.length < this.maxProblems) this.problems.push({ index, seq, ...f });
  }

  push(p: Presented): ReceiptBody | null {
    const index = this.count++;
    const r = checkReceipt(p, this.keyOf);
    const seq = r.body?.seq ?? null;
    for (const f of r.problems) this.add(index, seq, f);
    if (!r.body) {
      this.prev = null;
      return null;
    }
    const b = r.body;
    this.org ??= b.organisation_id;
    if (b.organisation_id !== this.org) {
      this.add(index, seq, { code: 'foreign_receipt', message: `The receipt belongs to organisation ${b.organisation_id}, not ${this.org}` });
    }
    if (this.prev) {
      if (b.seq !== this.prev.seq + 1) this.add(index, seq, { code: 'seq_gap', message: `seq ${b.seq} follows seq ${this.prev.seq}` });
      if (b.prev_hash !== this.prev.hash) this.add(index, seq, { code: 'prev_hash_mismatch', message: 'prev_hash is not the hash of the receipt before it' });
    } else if (index === 0 && b.seq === 1 && b.prev_hash !== GENESIS_HASH) {
      this.add(index, seq, { code: 'prev_hash_mismatch', message: 'The first receipt’s prev_hash must be 64 zeros' });
    }
    this.prev = { seq: b.seq, hash: r.hash };
    if (!this.seen.has(b.seq)) this.seen.set(b.seq, { index, hash: r.hash });
    return b;
  }

  /** The receipt at the checkpoint's seq must hash to its head; a chain that stops short is truncated. */
  finish(checkpoint?: CheckpointBody | null): ChainResult {
    if (checkpoint) {
      if (this.org !== undefined && checkpoint.organisation_id !== this.org) {
        this.add(this.count, null, { code: 'checkpoint_mismatch', message: 'The checkpoint is for another organisation' });
      } else {
        const at = this.seen.get(checkpoint.seq);
        if (!at) {
          const last = this.prev?.seq ?? 0;
          if (last < checkpoint.seq) {
            this.add(this.count, null, { code: 'truncated', message: `The chain ends at seq ${last}; the checkpoint names seq ${checkpoint.seq}` });
          }
        } else if (at.hash !== checkpoint.head_hash) {
          this.add(at.index, checkpoint.seq, { code: 'head_mismatch', message: 'The receipt at the checkpoint’s seq does not hash to its head_hash' });
        }
      }
    }
    this.problems.sort((a, b) => a.index - b.index);
    return { valid: this.firstBad === null, checked: this.count, first_bad_index: this.firstBad, problems: this.problems };
  }
}
