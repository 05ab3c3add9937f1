// SQL for energy receipts (organisation first, every query filtered on it) and for the service's
// signing keys (service-level: no organisation owns them).
import type { Queryable } from '../../infra/db/index.ts';

export interface ReceiptRow {
  receipt_id: string;
  content_hash: string;
  payload_canonical: string;
  key_id: string;
  signing_input: string;
  signature: string;
  issued_at: Date;
}

const RECEIPT_COLUMNS = 'receipt_id, content_hash, payload_canonical, key_id, signing_input, signature, issued_at';

/** An organisation's energy receipts. */
export const receiptStore = {
  /** Inserts unless the organisation already holds a receipt with this content hash; null then. */
  async insertReceipt(q: Queryable, orgId: string, r: ReceiptRow & { issued_by: string | null }): Promise<ReceiptRow | null> {
    const res = await q.query<ReceiptRow>(
      `insert into esg_receipts (org_id, receipt_id, content_hash, payload_canonical, key_id, signing_input, signature, issued_at, issued_by)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       on conflict (org_id, content_hash) do nothing
       returning ${RECEIPT_COLUMNS}`,
      [orgId, r.receipt_id, r.content_hash, r.payload_canonical, r.key_id, r.signing_input, r.signature, r.issued_at, r.issued_by],
    );
    return res.rows[0] ?? null;
  },

  async receiptByHash(q: Queryable, orgId: string, contentHash: string): Promise<ReceiptRow | null> {
    const res = await q.query<ReceiptRow>(`select ${RECEIPT_COLUMNS} from esg_receipts where org_id = $1 and content_hash = $2`, [orgId, contentHash]);
    return res.rows[0] ?? null;
  },

  async listReceipts(q: Queryable, orgId: string): Promise<ReceiptRow[]> {
    const res = await q.query<ReceiptRow>(`select ${RECEIPT_COLUMNS} from esg_receipts where org_id = $1 order by issued_at desc, receipt_id`, [orgId]);
    return res.rows;
  },
};

export interface KeyRow {
  key_id: string;
  public_key: string;
  private_key: string | null;
  origin: 'generated' | 'configured';
  created_at: Date;
}

/** The service's signing keys (no organisation owns them). */
export const signingKeyStore = {
  async listSigningKeys(q: Queryable): Promise<KeyRow[]> {
    const res = await q.query<KeyRow>('select key_id, public_key, null as private_key, origin, created_at from esg_signing_keys order by created_at, key_id');
    return res.rows;
  },

  async generatedSigningKey(q: Queryable): Promise<KeyRow | null> {
    const res = await q.query<KeyRow>("select key_id, public_key, private_key, origin, created_at from esg_signing_keys where origin = 'generated'");
    return res.rows[0] ?? null;
  },

  /** Records a key unless one with its id (or, for a generated key, any generated key) exists. */
  async insertSigningKey(q: Queryable, k: KeyRow): Promise<void> {
    await q.query(
      `insert into esg_signing_keys (key_id, public_key, private_key, origin, created_at)
       values ($1, $2, $3, $4, $5) on conflict do nothing`,
      [k.key_id, k.public_key, k.private_key, k.origin, k.created_at],
    );
  },
};
