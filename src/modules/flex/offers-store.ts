// SQL for flexibility offers. Every function takes the organisation first and filters on it.
import type { Queryable } from '../../infra/db/index.ts';

export type OfferStatus = 'submitting' | 'submitted' | 'rejected' | 'failed' | 'unknown';

export interface OfferInterval {
  start_utc: string;
  duration_minutes: number;
  price_gbp_per_mwh: number;
  capacity_mw: number;
}

export interface NewOffer {
  offerId: string;
  dno: string;
  reserveObjectId: string;
  tenderPlatformId: string | null;
  turnUp: boolean;
  intervals: OfferInterval[];
  submittedBy: string | null;
  requestId: string;
  createdAt: Date;
}

export interface OfferAnswer {
  status: OfferStatus;
  platformReference: string | null;
  bidIds: string[];
  platformStatus: number | null;
  platformResponse: unknown;
  answeredAt: Date;
}

export interface OfferRow {
  offer_id: string;
  dno: string;
  reserve_object_id: string;
  tender_platform_id: string | null;
  direction_turn_up: boolean;
  intervals: OfferInterval[];
  status: OfferStatus;
  platform_reference: string | null;
  platform_status: number | null;
  created_at: Date;
  answered_at: Date | null;
}

/** Flexibility offers sent to DNO platforms and their answers. */
export const offerStore = {
  async insertOffer(q: Queryable, orgId: string, o: NewOffer): Promise<void> {
    await q.query(
      `insert into flex_offers (org_id, offer_id, dno, reserve_object_id, tender_platform_id, direction_turn_up, intervals,
         status, submitted_by, request_id, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, 'submitting', $8, $9, $10)`,
      [orgId, o.offerId, o.dno, o.reserveObjectId, o.tenderPlatformId, o.turnUp, JSON.stringify(o.intervals), o.submittedBy, o.requestId, o.createdAt],
    );
  },

  async recordAnswer(q: Queryable, orgId: string, offerId: string, a: OfferAnswer): Promise<void> {
    await q.query(
      `update flex_offers set status = $3, platform_reference = $4, platform_bid_ids = $5, platform_status = $6,
         platform_response = $7, answered_at = $8
       where org_id = $1 and offer_id = $2`,
      [
        orgId,
        offerId,
        a.status,
        a.platformReference,
        JSON.stringify(a.bidIds),
        a.platformStatus,
        a.platformResponse === undefined ? null : JSON.stringify(a.platformResponse),
        a.answeredAt,
      ],
    );
  },

  async getOffer(q: Queryable, orgId: string, offerId: string): Promise<OfferRow | null> {
    const r = await q.query<OfferRow>(
      `select offer_id, dno, reserve_object_id, tender_platform_id, direction_turn_up, intervals, status,
         platform_reference, platform_status, created_at, answered_at
       from flex_offers where org_id = $1 and offer_id = $2`,
      [orgId, offerId],
    );
    return r.rows[0] ?? null;
  },

  /** The platform's ballot and bid ids of this organisation's accepted offers to one operator. */
  async platformRefs(q: Queryable, orgId: string, dno: string): Promise<{ ballots: Set<string>; bids: Set<string> }> {
    const r = await q.query<{ platform_reference: string | null; platform_bid_ids: string[] }>(
      `select platform_reference, platform_bid_ids from flex_offers
       where org_id = $1 and dno = $2 and status = 'submitted'`,
      [orgId, dno],
    );
    const ballots = new Set<string>();
    const bids = new Set<string>();
    for (const row of r.rows) {
      if (row.platform_reference) ballots.add(row.platform_reference);
      for (const b of row.platform_bid_ids ?? []) bids.add(b);
    }
    return { ballots, bids };
  },
};
