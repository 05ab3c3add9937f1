// Settlement receipts: what was delivered, signed with the service's Ed25519 key and appended to
// the organisation's hash chain. They move no money and submit nothing to any market. Issuing
// locks the organisation's chain head, so concurrent issues never fork the chain.
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { errors } from '../../platform/errors.ts';
import { invalidCursor, toPage } from '../../platform/cursor.ts';
import type { Keyring } from '../esg/index.ts';
import { settlementErrors } from './errors.ts';
import {
  CHECKPOINT_TYPE,
  FORMAT_VERSION,
  GENESIS_HASH,
  RECEIPT_TYPE,
  isoInstant,
  sha256Hex,
  signatureMembers,
  signBody,
  whToKwh,
  type CheckpointBody,
  type ReceiptBody,
} from './format.ts';
import { ChainVerifier, checkCheckpoint, checkReceipt, type KeyLookup, type Presented } from './verify.ts';
import { reconcile } from './reconciliation.ts';
import * as store from './store.ts';
import type { AuditLog } from '../audit/index.ts';

export const PUBLIC_PATH = '/api/vpp/vpp/settle/public/receipts/';
const DAY_MS = 86_400_000;
const CHAIN_BATCH = 1000;

export interface IssueInput {
  site_id: string;
  asset_id: string;
  reference?: string;
  period_start: string;
  period_end: string;
  direction: ReceiptBody['direction'];
  delivered_wh: number;
  source_basis: ReceiptBody['source_basis'];
}

const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

export function receiptView(r: store.ReceiptRow) {
  const b = JSON.parse(r.signed_body) as ReceiptBody;
  return {
    receipt_id: r.receipt_id,
    seq: r.seq,
    receipt_hash: r.receipt_hash,
    prev_hash: b.prev_hash,
    organisation_id: b.organisation_id,
    site_id: b.site_id,
    asset_id: b.asset_id,
    reference: b.reference,
    period_start: b.period_start,
    period_end: b.period_end,
    direction: b.direction,
    delivered_wh: b.delivered_wh,
    delivered_kwh: whToKwh(b.delivered_wh),
    source_basis: b.source_basis,
    issued_at: b.issued_at,
    ...signatureMembers(r.kid, r.signature, r.signed_body),
    shared: r.shared_at !== null,
    shared_at: r.shared_at ? isoInstant(r.shared_at) : null,
    public_path: r.shared_at ? PUBLIC_PATH + r.receipt_hash : null,
  };
}

export type ReceiptView = ReturnType<typeof receiptView>;

function checkpointView(h: store.HeadRow | null) {
  if (!h?.checkpoint_body || !h.checkpoint_signature) return null;
  const b = JSON.parse(h.checkpoint_body) as CheckpointBody;
  return {
    organisation_id: b.organisation_id,
    seq: b.seq,
    head_hash: b.head_hash,
    issued_at: b.issued_at,
    ...signatureMembers(b.kid, h.checkpoint_signature, h.checkpoint_body),
  };
}

function instant(loc: string[], value: string): number {
  const t = Date.parse(value);
  if (!Number.isFinite(t)) throw settlementErrors.field(loc, 'Not a valid instant', value);
  return t;
}

/**
 * A receipt's period bound (UTC by the schema's pattern): the instant it names, exactly. `Date.parse`
 * rolls 2026-02-30 over to 2 March and 24:00 to the next day; a signed receipt must carry what was
 * sent, so those are refused, as is year 0 (the store has none).
 */
function receiptInstant(loc: string[], value: string): number {
  const t = instant(loc, value);
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(value);
  const d = new Date(t);
  const exact =
    m !== null &&
    Number(m[1]) >= 1 &&
    d.getUTCFullYear() === Number(m[1]) &&
    d.getUTCMonth() + 1 === Number(m[2]) &&
    d.getUTCDate() === Number(m[3]) &&
    d.getUTCHours() === Number(m[4]) &&
    d.getUTCMinutes() === Number(m[5]);
  if (!exact) throw settlementErrors.field(loc, 'Not a valid instant', value);
  return t;
}

export function createSettlementService(deps: Pick<AppDeps, 'db' | 'clock' | 'cursors'> & { audit: AuditLog }, keys: Keyring) {
  const { db, clock, audit, cursors } = deps;
  const keyCache = new Map<string, KeyObject>();

  /** Every published key (the esg keyring lists each key that ever signed). */
  async function keyLookup(): Promise<KeyLookup> {
    for (const k of await keys.published()) if (!keyCache.has(k.key_id)) keyCache.set(k.key_id, createPublicKey(k.public_key_pem));
    return (kid) => keyCache.get(kid);
  }

  async function owned(ctx: RequestContext, receiptId: string) {
    const row = await store.receiptById(db, ctx.orgId, receiptId);
    if (!row) throw errors.notFound();
    return row;
  }

  async function setShared(ctx: RequestContext, receiptId: string, share: boolean) {
    return db.tx(async (q) => {
      const row = await store.receiptById(q, ctx.orgId, receiptId);
      if (!row) throw errors.notFound();
      if ((row.shared_at !== null) === share) return receiptView(row); // already so: nothing written
      const updated = (await store.setShared(q, ctx.orgId, receiptId, share ? clock.now() : null, share ? actorId(ctx) : null))!;
      await audit.record(q, ctx, {
        action: share ? 'settlement.receipt.share' : 'settlement.receipt.unshare',
        targetType: 'settlement_receipt',
        targetId: receiptId,
        details: { seq: row.seq, receipt_hash: row.receipt_hash },
      });
      return receiptView(updated);
    });
  }

  return {
    keyLookup,

    async issue(ctx: RequestContext, input: IssueInput) {
      const start = receiptInstant(['body', 'period_start'], input.period_start);
      const end = receiptInstant(['body', 'period_end'], input.period_end);
      if (end <= start) throw settlementErrors.field(['body', 'period_end'], 'period_end must be after period_start', input.period_end);
      if (end - start > 31 * DAY_MS) throw settlementErrors.field(['body', 'period_end'], 'A receipt covers at most 31 days', input.period_end);
      if (end > clock.now().getTime()) {
        throw settlementErrors.field(['body', 'period_end'], 'period_end is in the future: a receipt records what was delivered', input.period_end);
      }
      const key = await keys.active();
      if (!key) throw settlementErrors.signingKeyNotConfigured();
      return db.tx(async (q) => {
        const now = clock.now();
        const head = await store.lockHead(q, ctx.orgId, now);
        const body: ReceiptBody = {
          type: RECEIPT_TYPE,
          version: FORMAT_VERSION,
          receipt_id: randomUUID(),
          organisation_id: ctx.orgId,
          seq: head.seq + 1,
          prev_hash: head.head_hash,
          site_id: input.site_id,
          asset_id: input.asset_id,
          reference: input.reference ?? null,
          period_start: isoInstant(start),
          period_end: isoInstant(end),
          direction: input.direction,
          delivered_wh: input.delivered_wh,
          source_basis: input.source_basis,
          issued_at: isoInstant(now),
          kid: key.keyId,
        };
        const signed = signBody(body, key.privateKey);
        await store.insertReceipt(q, ctx.orgId, {
          ...body,
          receipt_hash: signed.hash,
          signed_body: signed.signed_body,
          signature: signed.signature,
          issued_by: actorId(ctx),
        });
        const checkpoint: CheckpointBody = {
          type: CHECKPOINT_TYPE,
          version: FORMAT_VERSION,
          organisation_id: ctx.orgId,
          seq: body.seq,
          head_hash: signed.hash,
          issued_at: body.issued_at,
          kid: key.keyId,
        };
        const cp = signBody(checkpoint, key.privateKey);
        await store.advanceHead(q, ctx.orgId, {
          seq: body.seq,
          head_hash: signed.hash,
          checkpoint_body: cp.signed_body,
          checkpoint_signature: cp.signature,
          kid: key.keyId,
          at: now,
        });
        await audit.record(q, ctx, {
          action: 'settlement.receipt.issue',
          targetType: 'settlement_receipt',
          targetId: body.receipt_id,
          details: { seq: body.seq, receipt_hash: signed.hash, site_id: body.site_id, asset_id: body.asset_id, delivered_wh: body.delivered_wh },
        });
        return receiptView({ ...body, receipt_hash: signed.hash, signed_body: signed.signed_body, signature: signed.signature, shared_at: null });
      });
    },

    async list(ctx: RequestContext, query: store.ListFilters & { limit?: number; cursor?: string }) {
      const filters: store.ListFilters = { site_id: query.site_id, asset_id: query.asset_id, shared: query.shared };
      const binding = { op: 'listSettlementReceipts', orgId: ctx.orgId, filters };
      let before: number | null = null;
      if (query.cursor) {
        before = Number(cursors.decode(query.cursor, binding).t);
        if (!Number.isSafeInteger(before)) throw invalidCursor();
      }
      const limit = query.limit ?? 50;
      const rows = await store.listReceipts(db, ctx.orgId, filters, before, limit + 1);
      const page = toPage(rows, limit, (r) => ({ t: String(r.seq), id: r.receipt_id }), cursors, binding);
      return { receipts: page.items.map(receiptView), next_cursor: page.next_cursor, has_more: page.has_more };
    },

    /** Every receipt matching the filters, newest first, a batch at a time (CSV export). */
    async *all(ctx: RequestContext, filters: store.ListFilters) {
      let before: number | null = null;
      for (;;) {
        const rows = await store.listReceipts(db, ctx.orgId, filters, before, CHAIN_BATCH);
        for (const r of rows) yield receiptView(r);
        if (rows.length < CHAIN_BATCH) return;
        before = rows[rows.length - 1].seq;
      }
    },

    async get(ctx: RequestContext, receiptId: string) {
      return receiptView(await owned(ctx, receiptId));
    },

    /** The stored receipt on its own and its link to the one before it. */
    async verifyStored(ctx: RequestContext, receiptId: string) {
      const row = await owned(ctx, receiptId);
      const keyOf = await keyLookup();
      const r = checkReceipt({ signed_body: row.signed_body, signature: row.signature, receipt_hash: row.receipt_hash }, keyOf);
      const problems = [...r.problems];
      if (r.body) {
        if (r.body.organisation_id !== ctx.orgId || r.body.seq !== row.seq || r.body.receipt_id !== row.receipt_id) {
          problems.push({ code: 'record_mismatch', message: 'The signed body does not name this receipt' });
        }
        const prev = row.seq > 1 ? await store.receiptBySeq(db, ctx.orgId, row.seq - 1) : null;
        const expected = prev ? prev.receipt_hash : row.seq === 1 ? GENESIS_HASH : null;
        if (expected === null || r.body.prev_hash !== expected) {
          problems.push({ code: 'prev_hash_mismatch', message: 'prev_hash is not the hash of the receipt before it' });
        }
      }
      return {
        receipt_id: row.receipt_id,
        seq: row.seq,
        receipt_hash: row.receipt_hash,
        kid: row.kid,
        valid: problems.length === 0,
        problems,
        verified_at: isoInstant(clock.now()),
      };
    },

    share: (ctx: RequestContext, receiptId: string) => setShared(ctx, receiptId, true),
    unshare: (ctx: RequestContext, receiptId: string) => setShared(ctx, receiptId, false),

    /** The whole stored chain in seq order, then its end against the signed checkpoint. */
    async verifyChain(ctx: RequestContext) {
      const keyOf = await keyLookup();
      const v = new ChainVerifier(keyOf, { organisationId: ctx.orgId });
      const head = await store.readHead(db, ctx.orgId);
      const cpView = checkpointView(head);
      const cp = cpView ? checkCheckpoint({ signed_body: cpView.signed_body, signature: cpView.signature }, keyOf) : null;
      let after = 0;
      for (;;) {
        const rows = await store.chainBatch(db, ctx.orgId, after, CHAIN_BATCH);
        for (const r of rows) v.push({ signed_body: r.signed_body, signature: r.signature, receipt_hash: r.receipt_hash });
        if (rows.length < CHAIN_BATCH) break;
        after = rows[rows.length - 1].seq;
      }
      const result = v.finish(cp?.body ?? null);
      const checkpointValid = cp ? cp.problems.length === 0 : null;
      const first = result.problems[0];
      return {
        organisation_id: ctx.orgId,
        valid: result.valid && checkpointValid !== false,
        checked: result.checked,
        first_bad_index: result.first_bad_index,
        first_bad_seq: first ? (first.seq ?? first.index + 1) : null,
        problems: result.problems,
        checkpoint: cpView,
        checkpoint_valid: checkpointValid,
        checkpoint_problems: cp?.problems ?? [],
        verified_at: isoInstant(clock.now()),
      };
    },

    /** A copy someone presents: checked from its published form only, then looked up in our records. */
    async verifyPresented(ctx: RequestContext, input: { receipts: Presented[]; checkpoint?: { signed_body: string; signature: string } }) {
      const keyOf = await keyLookup();
      const v = new ChainVerifier(keyOf);
      const bodies = input.receipts.map((p) => v.push(p));
      const cp = input.checkpoint ? checkCheckpoint(input.checkpoint, keyOf) : null;
      const result = v.finish(cp && cp.problems.length === 0 ? cp.body : null);
      const hashes = input.receipts.map((p) => sha256Hex(p.signed_body));
      const held = await store.heldHashes(db, ctx.orgId, [...new Set(hashes.filter((h, i) => h && bodies[i]?.organisation_id === ctx.orgId))]);
      const bad = new Set(result.problems.map((p) => p.index));
      return {
        valid: result.valid && (cp === null || cp.problems.length === 0),
        checked: result.checked,
        first_bad_index: result.first_bad_index,
        problems: result.problems,
        checkpoint_valid: cp ? cp.problems.length === 0 : null,
        checkpoint_problems: cp?.problems ?? [],
        receipts: input.receipts.map((_, i) => ({
          index: i,
          seq: bodies[i]?.seq ?? null,
          receipt_hash: hashes[i],
          valid: !bad.has(i),
          recorded: held.has(hashes[i]),
        })),
      };
    },

    async reconciliation(ctx: RequestContext, query: { from?: string; to?: string; site_id?: string; asset_id?: string }) {
      const to = query.to ? instant(['query', 'to'], query.to) : clock.now().getTime();
      const from = query.from ? instant(['query', 'from'], query.from) : to - 30 * DAY_MS;
      if (from >= to) throw settlementErrors.field(['query', 'to'], 'to must be after from', query.to ?? null);
      if (to - from > 366 * DAY_MS) throw settlementErrors.field(['query', 'from'], 'The window is at most 366 days', query.from ?? null);
      const lines = reconcile(await store.receiptsInWindow(db, ctx.orgId, new Date(from), new Date(to), query));
      let wh = 0n;
      for (const l of lines) wh += BigInt(l.receipted_wh);
      return {
        from: isoInstant(from),
        to: isoInstant(to),
        lines,
        totals: {
          lines: lines.length,
          receipts: lines.reduce((n, l) => n + l.receipts, 0),
          receipted_wh: wh.toString(),
          lines_with_overlaps: lines.filter((l) => l.overlapping_receipts > 0).length,
          lines_with_gaps: lines.filter((l) => l.uncovered_seconds > 0).length,
        },
        telemetry_compared: false as const,
      };
    },

    async keys(ctx: RequestContext) {
      const published = await keys.published();
      return { keys: published, checkpoint: checkpointView(await store.readHead(db, ctx.orgId)) };
    },

    /** Public: a receipt shared for counterparty verification, with the key that signed it. */
    async publicReceipt(hash: string) {
      const row = await store.sharedReceiptByHash(db, hash);
      if (!row) throw errors.notFound();
      const key = (await keys.published()).find((k) => k.key_id === row.kid) ?? null;
      return { receipt: receiptView(row), key };
    },
  };
}

export type SettlementService = ReturnType<typeof createSettlementService>;
