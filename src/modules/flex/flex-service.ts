// Flexibility with the two configured network operators: open tenders and awarded contracts read
// live from the operator's platform (briefly cached, stale served visibly when it is down), and
// offers validated, recorded, audited, submitted and recorded again with the platform's answer.
import { isoTime } from '../../platform/schema-kit.ts';
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { FlexOperatorConfig } from './config.ts';
import { flexConfig } from './config.ts';
import { sectionOf } from '../../core/config-section.ts';
import { errors, fieldError } from '../../platform/errors.ts';
import { createUpstreamCache, createUpstreamClient, UpstreamError, type Served, type UpstreamCache } from '../../infra/upstream/index.ts';
import { parseInstant } from '../../kit/uk-time.ts';
import { createPlatformClient, type BallotAnswer, type Contract, type PlatformClient, type Tender } from './platform-client.ts';
import { flexErrors } from './errors.ts';
import { offerStore, type OfferInterval, type OfferStatus } from './offers-store.ts';
import type { AuditLog } from '../audit/index.ts';

const RETAIN_MS = 24 * 3600_000;
/** The platform's answer is kept for the operator up to this size. */
const MAX_STORED_ANSWER = 64 * 1024;

function storable(body: unknown): unknown {
  const text = JSON.stringify(body ?? null);
  return text.length <= MAX_STORED_ANSWER ? body : { truncated: true, size: text.length };
}

export interface OfferBody {
  dno: string;
  reserve_object_id: string;
  tender_platform_id?: string;
  direction_turn_up: boolean;
  intervals: OfferInterval[];
}

type FlexDeps = Pick<AppDeps, 'config' | 'cache' | 'clock' | 'metrics' | 'log' | 'db'> & { audit: AuditLog };

export function createFlexService(deps: FlexDeps) {
  const { config, clock, db, audit } = deps;
  const settings = sectionOf(config, flexConfig);
  const operators = settings.operators;
  const ttlMs = settings.cacheTtlSeconds * 1000;
  const cache: UpstreamCache = createUpstreamCache({ cache: deps.cache, clock, namespace: config.namespace, metrics: deps.metrics });
  const clients = new Map<string, PlatformClient>();
  const log: FastifyBaseLogger = deps.log;

  function operator(dno: string): FlexOperatorConfig {
    const op = operators.find((o) => o.id === dno);
    if (!op) throw errors.validation([fieldError(['query', 'dno'], `Input should be ${operators.map((o) => `'${o.id}'`).join(' or ')}`, dno, 'enum')]);
    return op;
  }

  /** The operator's platform client; 503 when its base URL or credentials are not configured. */
  function platform(op: FlexOperatorConfig): PlatformClient {
    if (!op.baseUrl || !op.clientId || !op.apiKey) throw flexErrors.credentialsNotConfigured();
    let c = clients.get(op.id);
    if (!c) {
      const client = createUpstreamClient({
        provider: `flex:${op.id}`,
        baseUrl: op.baseUrl,
        timeoutMs: config.upstreams.timeoutMs,
        retries: config.upstreams.retries,
        retryBaseMs: config.upstreams.retryBaseMs,
        allowPrivate: config.allowPrivateOutbound,
        metrics: deps.metrics,
      });
      c = createPlatformClient({ client, clientId: op.clientId, apiKey: op.apiKey, clock });
      clients.set(op.id, c);
    }
    return c;
  }

  function failed(e: unknown, op: FlexOperatorConfig): never {
    if (e instanceof UpstreamError) {
      log.warn({ provider: e.provider, kind: e.kind, status: e.status, dno: op.id }, 'flexibility platform call failed');
      throw flexErrors.platform();
    }
    throw e;
  }

  async function cached<T>(op: FlexOperatorConfig, what: string, fetch: () => Promise<T>): Promise<Served<T>> {
    try {
      return await cache.serve(`flex:${op.id}:${what}`, { provider: `flex:${op.id}`, fetch, freshFor: () => ttlMs, retainMs: RETAIN_MS });
    } catch (e) {
      failed(e, op);
    }
  }

  async function tenders(dno: string): Promise<Served<Tender[]>> {
    const op = operator(dno);
    const p = platform(op);
    return cached(op, 'tenders', () => p.tenders());
  }

  /** Contracts awarded on bids this organisation submitted through the service; nobody else's. */
  async function contracts(ctx: RequestContext, dno: string): Promise<Served<Contract[]>> {
    const op = operator(dno);
    const p = platform(op);
    const served = await cached(op, 'contracts', () => p.contracts());
    const mine = await offerStore.platformRefs(db, ctx.orgId, op.id);
    const value = served.value.filter((c) => (c.bid_id !== null && mine.bids.has(c.bid_id)) || (c.ballot_id !== null && mine.ballots.has(c.ballot_id)));
    return { ...served, value };
  }

  function checkIntervals(intervals: OfferInterval[], now: number): { start: number; end: number }[] {
    const spans = intervals.map((iv, i) => {
      const start = parseInstant(iv.start_utc);
      if (start === null) {
        throw errors.validation([
          fieldError(['body', 'intervals', i, 'start_utc'], 'Input should be a valid ISO 8601 date-time in UTC', iv.start_utc, 'datetime_parsing'),
        ]);
      }
      return { start, end: start + iv.duration_minutes * 60_000 };
    });
    if (spans.some((s) => s.start <= now)) throw flexErrors.intervalInPast();
    const sorted = [...spans].sort((a, b) => a.start - b.start);
    if (sorted.some((s, i) => i > 0 && sorted[i - 1].end > s.start)) throw flexErrors.intervalsOverlap();
    return spans;
  }

  async function submitOffer(ctx: RequestContext, body: OfferBody) {
    const op = operator(body.dno);
    // The caller's mistakes first (422, 400), then whether the platform is wired (503).
    const spans = checkIntervals(body.intervals, clock.now().getTime());
    if (op.requiresTenderPlatformId && !body.tender_platform_id) throw flexErrors.tenderPlatformIdRequired(op.id);
    const p = platform(op);
    let tenderPlatformId = body.tender_platform_id ?? null;
    if (!tenderPlatformId) {
      const open = await cached(op, 'tenders', () => p.tenders());
      tenderPlatformId = open.value.find((t) => t.reserve_object_id === body.reserve_object_id)?.tender_platform_id ?? null;
      if (!tenderPlatformId) throw flexErrors.unknownReserveObject(op.id);
    }
    const offerId = randomUUID();
    const intervals = body.intervals.map((iv, i) => ({ ...iv, start_utc: isoTime(spans[i].start) }));
    const createdAt = clock.now();
    const submittedBy = ctx.actor.kind === 'user' ? ctx.actor.userId : null;
    await db.tx(async (q) => {
      await offerStore.insertOffer(q, ctx.orgId, {
        offerId,
        dno: op.id,
        reserveObjectId: body.reserve_object_id,
        tenderPlatformId,
        turnUp: body.direction_turn_up,
        intervals,
        submittedBy,
        requestId: ctx.requestId,
        createdAt,
      });
      await audit.record(q, ctx, {
        action: 'flex.offer.submit',
        targetType: 'flex_offer',
        targetId: offerId,
        details: { dno: op.id, reserve_object_id: body.reserve_object_id, tender_platform_id: tenderPlatformId, intervals: intervals.length },
      });
    });

    let answer: BallotAnswer | null = null;
    let failure: UpstreamError | null = null;
    try {
      answer = await p.submit({
        tenderPlatformId,
        reserveObjectId: body.reserve_object_id,
        turnUp: body.direction_turn_up,
        intervals: intervals.map((iv, i) => ({
          start: spans[i].start,
          durationMinutes: iv.duration_minutes,
          priceGbpPerMwh: iv.price_gbp_per_mwh,
          capacityMw: iv.capacity_mw,
        })),
      });
    } catch (e) {
      if (!(e instanceof UpstreamError)) throw e;
      failure = e;
    }
    const status: OfferStatus = answer ? (answer.accepted ? 'submitted' : 'rejected') : failure!.kind === 'timeout' ? 'unknown' : 'failed';
    const answeredAt = clock.now();
    await db.tx(async (q) => {
      await offerStore.recordAnswer(q, ctx.orgId, offerId, {
        status,
        platformReference: answer?.accepted ? answer.ballotId : null,
        bidIds: answer?.accepted ? answer.bidIds : [],
        platformStatus: answer?.status ?? failure?.status ?? null,
        platformResponse: answer ? storable(answer.body) : { failure: failure!.kind },
        answeredAt,
      });
      await audit.record(q, ctx, {
        action: 'flex.offer.answer',
        targetType: 'flex_offer',
        targetId: offerId,
        details: { dno: op.id, outcome: status, platform_status: answer?.status ?? failure?.status ?? null },
      });
    });
    if (failure) failed(failure, op);
    if (!answer!.accepted) throw flexErrors.offerRejected();
    return {
      offer_id: offerId,
      dno: op.id,
      reserve_object_id: body.reserve_object_id,
      tender_platform_id: tenderPlatformId,
      direction_turn_up: body.direction_turn_up,
      intervals,
      status: 'submitted' as const,
      platform_reference: answer!.ballotId,
      submitted_at: isoTime(createdAt.getTime()),
      answered_at: isoTime(answeredAt.getTime()),
    };
  }

  return { operators, tenders, contracts, submitOffer };
}

export type FlexService = ReturnType<typeof createFlexService>;
