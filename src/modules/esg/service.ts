// Energy receipts: a payload stored with a content hash that identifies it within the
// organisation (SHA-256 of its canonical JSON) and the service's Ed25519 signature over the
// receipt's signing input (canonical JSON of receipt id, organisation, content hash, issue time
// and key id). The same payload again returns the receipt already issued.
import { createHash, randomUUID, sign } from 'node:crypto';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { CANONICAL_MAX_DEPTH, canonicalJson, CanonicalError } from '../../kit/canonical-json.ts';
import { isoZ } from '../../kit/uk-time.ts';
import { esgErrors } from './errors.ts';
import type { Keyring } from './keys.ts';
import { receiptStore, type ReceiptRow } from './store.ts';
import type { AuditLog } from '../audit/index.ts';

export function receiptView(r: ReceiptRow) {
  return {
    receipt_id: r.receipt_id,
    content_hash: r.content_hash,
    hash_algorithm: 'sha256' as const,
    payload: JSON.parse(r.payload_canonical) as Record<string, unknown>,
    issued_at: isoZ(r.issued_at),
    key_id: r.key_id,
    signature_algorithm: 'Ed25519' as const,
    signature: r.signature,
    signing_input: r.signing_input,
  };
}

export function createReceiptService(deps: Pick<AppDeps, 'db' | 'clock'> & { audit: AuditLog }, keys: Keyring) {
  const { db, clock, audit } = deps;
  return {
    async list(ctx: RequestContext) {
      return (await receiptStore.listReceipts(db, ctx.orgId)).map(receiptView);
    },

    /** { created, receipt }: created is false when this payload already has a receipt. */
    async issue(ctx: RequestContext, payload: Record<string, unknown>) {
      let canonical: string;
      try {
        canonical = canonicalJson(payload, { maxDepth: CANONICAL_MAX_DEPTH });
      } catch (e) {
        if (e instanceof CanonicalError) throw esgErrors.payloadTooDeep(e.message);
        throw e;
      }
      const contentHash = createHash('sha256').update(canonical).digest('hex');
      const existing = await receiptStore.receiptByHash(db, ctx.orgId, contentHash);
      if (existing) return { created: false, receipt: receiptView(existing) };
      const key = await keys.active();
      if (!key) throw esgErrors.signingKeyNotConfigured();
      const receiptId = randomUUID();
      const issuedAt = clock.now();
      const signingInput = canonicalJson({
        content_hash: contentHash,
        issued_at: isoZ(issuedAt),
        key_id: key.keyId,
        organisation_id: ctx.orgId,
        receipt_id: receiptId,
        type: 'energy_receipt',
        version: 1,
      });
      const signature = sign(null, Buffer.from(signingInput, 'utf8'), key.privateKey).toString('base64');
      return db.tx(async (q) => {
        const row = await receiptStore.insertReceipt(q, ctx.orgId, {
          receipt_id: receiptId,
          content_hash: contentHash,
          payload_canonical: canonical,
          key_id: key.keyId,
          signing_input: signingInput,
          signature,
          issued_at: issuedAt,
          issued_by: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
        });
        if (!row) return { created: false, receipt: receiptView((await receiptStore.receiptByHash(q, ctx.orgId, contentHash))!) };
        await audit.record(q, ctx, {
          action: 'esg.receipt.create',
          targetType: 'energy_receipt',
          targetId: receiptId,
          details: { content_hash: contentHash, key_id: key.keyId },
        });
        return { created: true, receipt: receiptView(row) };
      });
    },
  };
}
