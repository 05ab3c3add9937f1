// SQL for settlement receipts and chain heads. Every function takes the organisation first and
// filters on it, except the public lookup by hash (shared receipts only, any organisation).
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';
import type { Queryable } from '../../infra/db/index.ts';
import { GENESIS_HASH } from './format.ts';

export interface ReceiptRow {
  receipt_id: string;
  seq: number;
  receipt_hash: string;
  signed_body: string;
  signature: string;
  kid: string;
  shared_at: Date | null;
}

export interface NewReceipt {
  receipt_id: string;
  seq: number;
  receipt_hash: string;
  prev_hash: string;
  signed_body: string;
  signature: string;
  kid: string;
  site_id: string;
  asset_id: string;
  reference: string | null;
  period_start: string;
  period_end: string;
  direction: string;
  delivered_wh: number;
  source_basis: string;
  issued_at: string;
  issued_by: string | null;
}

export interface HeadRow {
  seq: number;
  head_hash: string;
  checkpoint_body: string | null;
  checkpoint_signature: string | null;
}

export interface ListFilters {
  site_id?: string;
  asset_id?: string;
  shared?: boolean;
}

const COLUMNS = 'receipt_id, seq, receipt_hash, signed_body, signature, kid, shared_at';

/**
 * Locks the organisation's chain head for this transaction (creating it at seq 0), so appends of
 * one organisation run one after another and each sees the previous one's head.
 */
export async function lockHead(q: Queryable, orgId: string, at: Date): Promise<HeadRow> {
  await q.query(
    `insert into settlement_chain_heads (org_id, seq, head_hash, updated_at) values ($1, 0, $2, $3)
     on conflict (org_id) do nothing`,
    [orgId, GENESIS_HASH, at],
  );
  const r = await q.query<HeadRow>('select seq, head_hash, checkpoint_body, checkpoint_signature from settlement_chain_heads where org_id = $1 for update', [
    orgId,
  ]);
  return r.rows[0];
}

export async function readHead(q: Queryable, orgId: string): Promise<HeadRow | null> {
  const r = await q.query<HeadRow>('select seq, head_hash, checkpoint_body, checkpoint_signature from settlement_chain_heads where org_id = $1', [orgId]);
  return r.rows[0] ?? null;
}

export async function insertReceipt(q: Queryable, orgId: string, r: NewReceipt): Promise<void> {
  await q.query(
    `insert into settlement_receipts (org_id, receipt_id, seq, receipt_hash, prev_hash, signed_body, signature, kid, site_id,
       asset_id, reference, period_start, period_end, direction, delivered_wh, source_basis, issued_at, issued_by)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    [
      orgId,
      r.receipt_id,
      r.seq,
      r.receipt_hash,
      r.prev_hash,
      r.signed_body,
      r.signature,
      r.kid,
      r.site_id,
      r.asset_id,
      r.reference,
      r.period_start,
      r.period_end,
      r.direction,
      r.delivered_wh,
      r.source_basis,
      r.issued_at,
      r.issued_by,
    ],
  );
}

export async function advanceHead(
  q: Queryable,
  orgId: string,
  h: { seq: number; head_hash: string; checkpoint_body: string; checkpoint_signature: string; kid: string; at: Date },
): Promise<void> {
  await q.query(
    `update settlement_chain_heads set seq = $2, head_hash = $3, checkpoint_body = $4, checkpoint_signature = $5, kid = $6, updated_at = $7
     where org_id = $1`,
    [orgId, h.seq, h.head_hash, h.checkpoint_body, h.checkpoint_signature, h.kid, h.at],
  );
}

export async function receiptById(q: Queryable, orgId: string, receiptId: string): Promise<ReceiptRow | null> {
  const r = await q.query<ReceiptRow>(`select ${COLUMNS} from settlement_receipts where org_id = $1 and receipt_id = $2`, [orgId, receiptId]);
  return r.rows[0] ?? null;
}

export async function receiptBySeq(q: Queryable, orgId: string, seq: number): Promise<ReceiptRow | null> {
  const r = await q.query<ReceiptRow>(`select ${COLUMNS} from settlement_receipts where org_id = $1 and seq = $2`, [orgId, seq]);
  return r.rows[0] ?? null;
}

/** Newest first (seq descending), strictly before `beforeSeq` when given. */
export async function listReceipts(q: Queryable, orgId: string, f: ListFilters, beforeSeq: number | null, limit: number): Promise<ReceiptRow[]> {
  const params: unknown[] = [orgId, limit];
  const where = ['org_id = $1'];
  const add = (sql: string, v: unknown) => {
    params.push(v);
    where.push(sql.replace('?', `$${params.length}`));
  };
  if (beforeSeq !== null) add('seq < ?', beforeSeq);
  if (f.site_id !== undefined) add('site_id = ?', f.site_id);
  if (f.asset_id !== undefined) add('asset_id = ?', f.asset_id);
  if (f.shared !== undefined) where.push(f.shared ? 'shared_at is not null' : 'shared_at is null');
  const r = await q.query<ReceiptRow>(`select ${COLUMNS} from settlement_receipts where ${where.join(' and ')} order by seq desc limit $2`, params);
  return r.rows;
}

/** Oldest first from `afterSeq` (exclusive): the chain in order, one batch at a time. */
export async function chainBatch(q: Queryable, orgId: string, afterSeq: number, limit: number): Promise<ReceiptRow[]> {
  const r = await q.query<ReceiptRow>(`select ${COLUMNS} from settlement_receipts where org_id = $1 and seq > $2 order by seq limit $3`, [
    orgId,
    afterSeq,
    limit,
  ]);
  return r.rows;
}

/** Which of these hashes the organisation holds. */
export async function heldHashes(q: Queryable, orgId: string, hashes: string[]): Promise<Set<string>> {
  if (!hashes.length) return new Set();
  const r = await q.query<{ receipt_hash: string }>('select receipt_hash from settlement_receipts where org_id = $1 and receipt_hash = any($2)', [
    orgId,
    hashes,
  ]);
  return new Set(r.rows.map((x) => x.receipt_hash));
}

/** Sets or clears shared_at; null when the receipt is not the organisation's. */
export async function setShared(q: Queryable, orgId: string, receiptId: string, at: Date | null, by: string | null): Promise<ReceiptRow | null> {
  const r = await q.query<ReceiptRow>(
    `update settlement_receipts set shared_at = $3, shared_by = $4 where org_id = $1 and receipt_id = $2 returning ${COLUMNS}`,
    [orgId, receiptId, at, by],
  );
  return r.rows[0] ?? null;
}

/** The public lookup: only a receipt that is shared now. */
export async function sharedReceiptByHash(q: Queryable, hash: string): Promise<ReceiptRow | null> {
  const r = await q.query<ReceiptRow>(`select ${COLUMNS} from settlement_receipts where receipt_hash = $1 and shared_at is not null`, [hash]);
  return r.rows[0] ?? null;
}

export interface ReconRow {
  receipt_id: string;
  site_id: string;
  asset_id: string;
  direction: string;
  period_start: Date;
  period_end: Date;
  delivered_wh: string;
  shared: boolean;
}

/** Receipts whose period starts in [from, to), grouped order for reconciliation. */
export async function receiptsInWindow(q: Queryable, orgId: string, from: Date, to: Date, f: { site_id?: string; asset_id?: string }): Promise<ReconRow[]> {
  const params: unknown[] = [orgId, from, to];
  let extra = '';
  if (f.site_id !== undefined) {
    params.push(f.site_id);
    extra += ` and site_id = $${params.length}`;
  }
  if (f.asset_id !== undefined) {
    params.push(f.asset_id);
    extra += ` and asset_id = $${params.length}`;
  }
  const r = await q.query<ReconRow>(
    `select receipt_id, site_id, asset_id, direction, period_start, period_end, delivered_wh::text as delivered_wh, shared_at is not null as shared
     from settlement_receipts where org_id = $1 and period_start >= $2 and period_start < $3${extra}
     order by site_id, asset_id, direction, period_start, seq`,
    params,
  );
  return r.rows;
}

// ---- Export (the module declares them in its manifest: ModuleDefinition.exportable) ----------
/** Settlement receipts for the organisation's export (decision 0206): rows as JSON text from the database. */
export const settlementExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'settlement.receipts',
    description: 'Signed settlement receipts in chain order: the signed body, signature, hash, previous hash, key, delivery figures and sharing.',
    table: 'settlement_receipts',
    columns: [
      'receipt_id',
      'seq',
      'receipt_hash',
      'prev_hash',
      'signed_body',
      'signature',
      'kid',
      'site_id',
      'asset_id',
      'reference',
      'period_start:iso',
      'period_end:iso',
      'direction',
      'delivered_wh:text',
      'source_basis',
      'issued_at:iso',
      'issued_by',
      'shared_at:iso',
      'shared_by',
    ],
    period: 'issued_at',
    key: ['seq:integer'],
  }),
];
