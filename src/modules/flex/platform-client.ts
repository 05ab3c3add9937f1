// THE ADAPTER BOUNDARY to an operator's flexibility platform. Shapes follow the marketplace API in
// upstreams.md section 4.2: machine-user token (POST /authtoken/v1/ {client_id, api_key} ->
// {token}), open bidding opportunities (GET /bidding-opportunities/v1/), contractual obligations
// (GET /obligations/v1/), bids in a ballot (POST /bids/v1/competitions/{id}/ballots/), trailing
// slashes, decimals as strings. The list and obligation shapes are UNCONFIRMED: the readers below
// take the documented field names plus common aliases and ignore anything else. When the real
// shapes are known, this file is the one to change.
import { isoTime } from '../../platform/schema-kit.ts';
import { BadResponseError, jsonBody, UpstreamError, type UpstreamClient } from '../../infra/upstream/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { parseInstant, isoZ } from '../../kit/uk-time.ts';

export interface Tender {
  /** The tender's (competition's) id on the platform. */
  tender_platform_id: string;
  /** The operator's reference for the requirement (competition reference); falls back to the id. */
  reserve_object_id: string;
  name: string | null;
  zone: string | null;
  product: string | null;
  status: string | null;
  bidding_closes_at: string | null;
  capacity_required_mw: number | null;
  service_windows: { id: string; start_utc: string | null; end_utc: string | null }[];
}

export interface Contract {
  contract_id: string;
  tender_platform_id: string | null;
  reserve_object_id: string | null;
  ballot_id: string | null;
  bid_id: string | null;
  start_utc: string | null;
  end_utc: string | null;
  quantity_mw: number;
  clearing_price_gbp_per_mwh: number | null;
  price_type: string | null;
  status: string;
}

export interface BidInterval {
  start: number;
  durationMinutes: number;
  priceGbpPerMwh: number;
  capacityMw: number;
}

export type BallotAnswer =
  | { accepted: true; status: number; ballotId: string; bidIds: string[]; body: unknown }
  | { accepted: false; status: number; body: unknown };

const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const first = (o: Record<string, unknown>, ...keys: string[]) => keys.map((k) => o[k]).find((v) => v !== undefined && v !== null);
const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : null);

function decimalNumber(v: unknown, what: string): number | null {
  if (v === undefined || v === null || v === '') return null;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v.trim())) return Number(v);
  throw new BadResponseError(`${what} is not a decimal`);
}

/** An instant from the platform, as our answers write instants (isoTime). */
function time(v: unknown): string | null {
  const t = typeof v === 'string' ? parseInstant(v) : null;
  return t === null ? null : isoTime(t);
}

function list(raw: unknown): unknown[] {
  if (Array.isArray(raw)) return raw;
  const o = obj(raw);
  const l = o && first(o, 'results', 'data', 'items');
  if (!Array.isArray(l)) throw new BadResponseError('no list');
  return l;
}

function decodeTender(raw: unknown): Tender {
  const o = obj(raw);
  const id = o && text(first(o, 'id', 'competition_id'));
  if (!o || !id) throw new BadResponseError('an opportunity has no id');
  const zone = first(o, 'zone', 'location');
  const windows = first(o, 'service_windows', 'windows');
  return {
    tender_platform_id: id,
    reserve_object_id: text(first(o, 'reference', 'competition_reference', 'ref')) ?? id,
    name: text(first(o, 'name', 'title')),
    zone: text(zone) ?? text(obj(zone)?.name),
    product: text(first(o, 'product', 'service', 'service_type')),
    status: text(o.status),
    bidding_closes_at: time(first(o, 'bidding_closes_at', 'bidding_deadline', 'closes_at')),
    capacity_required_mw: decimalNumber(first(o, 'capacity_required', 'capacity_required_mw', 'required_capacity'), 'capacity_required'),
    service_windows: Array.isArray(windows)
      ? windows.flatMap((w) => {
          const wo = obj(w);
          const wid = wo && text(wo.id);
          return wo && wid
            ? [{ id: wid, start_utc: time(first(wo, 'start', 'starts_at', 'start_time')), end_utc: time(first(wo, 'end', 'ends_at', 'end_time')) }]
            : [];
        })
      : [],
  };
}

function decodeContract(raw: unknown): Contract {
  const o = obj(raw);
  const id = o && text(o.id);
  if (!o || !id) throw new BadResponseError('an obligation has no id');
  const quantity = decimalNumber(first(o, 'capacity', 'quantity', 'capacity_mw'), 'capacity');
  if (quantity === null) throw new BadResponseError('an obligation has no capacity');
  const rates = Array.isArray(o.rates) ? o.rates.map(obj).filter((r): r is Record<string, unknown> => r !== null) : [];
  const rate = rates.find((r) => r.type === 'utilisation') ?? rates[0];
  return {
    contract_id: id,
    tender_platform_id: text(first(o, 'competition_id', 'competition')),
    reserve_object_id: text(first(o, 'competition_reference', 'reference')),
    ballot_id: text(first(o, 'ballot_id', 'ballot')),
    bid_id: text(first(o, 'bid_id', 'bid')),
    start_utc: time(first(o, 'start', 'start_date', 'starts_at')),
    end_utc: time(first(o, 'end', 'end_date', 'ends_at')),
    quantity_mw: quantity,
    clearing_price_gbp_per_mwh: rate ? decimalNumber(rate.value, 'rate') : decimalNumber(first(o, 'clearing_price', 'price'), 'clearing_price'),
    price_type: rate ? text(rate.type) : null,
    status: text(o.status) ?? 'awarded',
  };
}

/** "HH:mm:ss", or "DTHH:mm:ss" from a day on, as the platform writes run times. */
export function runtime(minutes: number): string {
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const hms = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:00`;
  return d > 0 ? `${d}T${hms}` : hms;
}

function tokenExpiry(token: string, now: number): number {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as { exp?: unknown };
    if (typeof payload.exp === 'number') return payload.exp * 1000 - 60_000;
  } catch {
    // Not a JWT: keep it for a short while.
  }
  return now + 10 * 60_000;
}

export interface PlatformClient {
  tenders(): Promise<Tender[]>;
  contracts(): Promise<Contract[]>;
  /** Not retried: an offer is not idempotent. A timeout leaves the outcome unknown (UpstreamError 'timeout'). */
  submit(input: { tenderPlatformId: string; reserveObjectId: string; turnUp: boolean; intervals: BidInterval[] }): Promise<BallotAnswer>;
}

export function createPlatformClient(o: { client: UpstreamClient; clientId: string; apiKey: string; clock: Clock }): PlatformClient {
  const { client } = o;
  // The machine user's token, kept by this instance until shortly before it expires.
  let token: { value: string; until: number } | null = null;

  async function bearer(renew = false): Promise<string> {
    const now = o.clock.now().getTime();
    if (!renew && token && now < token.until) return token.value;
    const value = await client.call({
      method: 'POST',
      url: '/authtoken/v1/',
      json: { client_id: o.clientId, api_key: o.apiKey },
      idempotent: true,
      decode: (res) => {
        const t = text(obj(jsonBody(res))?.token);
        if (!t) throw new BadResponseError('no token');
        return t;
      },
    });
    token = { value, until: tokenExpiry(value, now) };
    return value;
  }

  /** One call with the token; on 401 the token is renewed and the call made once more. */
  async function authed<T>(make: (authorization: string) => Promise<T>): Promise<T> {
    try {
      return await make(`Bearer ${await bearer()}`);
    } catch (e) {
      if (!(e instanceof UpstreamError) || e.status !== 401) throw e;
      return make(`Bearer ${await bearer(true)}`);
    }
  }

  return {
    tenders: () =>
      authed((authorization) =>
        client.call({ url: '/bidding-opportunities/v1/', headers: { authorization }, decode: (res) => list(jsonBody(res)).map(decodeTender) }),
      ),
    contracts: () =>
      authed((authorization) => client.call({ url: '/obligations/v1/', headers: { authorization }, decode: (res) => list(jsonBody(res)).map(decodeContract) })),
    submit: (input) =>
      authed((authorization) =>
        client.call<BallotAnswer>({
          method: 'POST',
          url: `/bids/v1/competitions/${encodeURIComponent(input.tenderPlatformId)}/ballots/`,
          headers: { authorization },
          idempotent: false,
          // A refusal of the offer is an answer (recorded); 401 renews the token; 5xx is a failure.
          accept: (s) => s < 500 && s !== 401 && s !== 403,
          json: {
            competition_id: input.tenderPlatformId,
            reference: input.reserveObjectId,
            bids: input.intervals.map((iv) => ({
              start: isoZ(iv.start),
              capacity: String(iv.capacityMw),
              max_runtime: runtime(iv.durationMinutes),
              direction: input.turnUp ? 'turn_up' : 'turn_down',
              rates: [{ type: 'utilisation', value: String(iv.priceGbpPerMwh) }],
            })),
          },
          decode: (res) => {
            let body: unknown = null;
            try {
              body = res.json();
            } catch {
              body = null;
            }
            if (res.status < 200 || res.status >= 300) return { accepted: false, status: res.status, body };
            const b = obj(body);
            const ballotId = b && text(b.id);
            if (!b || !ballotId) throw new BadResponseError('no ballot id');
            const bidIds = Array.isArray(b.bids) ? b.bids.map((x) => text(obj(x)?.id)).filter((x): x is string => x !== null) : [];
            return { accepted: true, status: res.status, ballotId, bidIds, body };
          },
        }),
      ),
  };
}
