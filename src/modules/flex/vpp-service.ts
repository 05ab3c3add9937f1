// Enrolment of a site in the service's virtual power plant, and its signal. Enrolment is its own
// state (not_enrolled → enrolled ⇄ withdrawn); it implies no partnership, qualification or
// dispatch, and nothing here sends a device command.
import { isoTime } from '../../platform/schema-kit.ts';
import type { AppDeps } from '../../platform/module.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { MarketData } from '../market/index.ts';
import { addDays, ukDate, ukMidnight } from '../../kit/uk-time.ts';
import { flexErrors } from './errors.ts';
import { enrolmentStore, type EnrolmentRow } from './vpp-store.ts';
import { deriveSignal, SIGNAL_METHOD } from './signal.ts';
import type { AuditLog } from '../audit/index.ts';

type VppDeps = Pick<AppDeps, 'db' | 'clock'> & { audit: AuditLog };

const by = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);
const when = (d: Date | null) => (d ? isoTime(new Date(d).getTime()) : null);

function view(siteId: string, row: EnrolmentRow | null) {
  return {
    site_id: siteId,
    status: row ? row.status : ('not_enrolled' as const),
    region: row?.region ?? null,
    enrolled_at: row ? when(row.enrolled_at) : null,
    withdrawn_at: row ? when(row.withdrawn_at) : null,
    updated_at: row ? when(row.updated_at) : null,
  };
}

export function createVppService(deps: VppDeps, market: MarketData) {
  const { db, clock, audit } = deps;

  return {
    async get(ctx: RequestContext, siteId: string) {
      return view(siteId, await enrolmentStore.getEnrolment(db, ctx.orgId, siteId));
    },

    /** Enrols the site; `created` is false when it was already enrolled (its region may change). */
    async enrol(ctx: RequestContext, siteId: string, region: string) {
      return db.tx(async (q) => {
        const before = await enrolmentStore.getEnrolment(q, ctx.orgId, siteId, true);
        const row = await enrolmentStore.upsertEnrolment(q, ctx.orgId, siteId, region, by(ctx), clock.now());
        const created = before?.status !== 'enrolled';
        await audit.record(q, ctx, {
          action: created ? 'vpp.enrollment.create' : 'vpp.enrollment.update',
          targetType: 'site',
          targetId: siteId,
          details: { region, previous_status: before?.status ?? 'not_enrolled', previous_region: before?.region ?? null },
        });
        return { created, enrolment: view(siteId, row) };
      });
    },

    async withdraw(ctx: RequestContext, siteId: string) {
      return db.tx(async (q) => {
        const row = await enrolmentStore.withdrawEnrolment(q, ctx.orgId, siteId, by(ctx), clock.now());
        if (!row) throw flexErrors.notEnrolled();
        await audit.record(q, ctx, { action: 'vpp.enrollment.withdraw', targetType: 'site', targetId: siteId, details: { region: row.region } });
        return view(siteId, row);
      });
    },

    async signal(ctx: RequestContext, siteId: string, hours: number) {
      const row = await enrolmentStore.getEnrolment(db, ctx.orgId, siteId);
      if (!row || row.status !== 'enrolled') throw flexErrors.notEnrolled();
      const now = clock.now().getTime();
      const today = ukDate(now);
      const [prices, carbon] = await Promise.all([
        market.prices.range(row.region, ukMidnight(today), ukMidnight(addDays(today, 2))),
        market.carbon.forward(48),
      ]);
      const s = deriveSignal(prices.rows, carbon.value, now, hours * 2);
      const current = s.slots[0] && s.slots[0].row.from <= now ? s.slots[0] : null;
      return {
        site_id: siteId,
        region: row.region,
        generated_at: isoTime(now),
        action: current?.action ?? ('hold' as const),
        reason: current?.reason ?? 'No published price for the current half hour',
        slots: s.slots.map((x) => ({
          valid_from: isoTime(x.row.from),
          valid_to: isoTime(x.row.to),
          action: x.action,
          reason: x.reason,
          value_inc_vat: x.row.inc,
          value_exc_vat: x.row.exc,
          carbon_intensity: x.carbon ? (x.carbon.actual ?? x.carbon.forecast) : null,
          carbon_index: x.carbon?.index ?? null,
        })),
        thresholds: { cheap_value_inc_vat: s.cheap, dear_value_inc_vat: s.dear, horizon_slots: s.horizonSlots },
        device_command_sent: false as const,
        data_basis: { basis: 'calculated' as const, method: SIGNAL_METHOD },
        stale: prices.stale || carbon.stale,
        cached_at: isoTime(Math.min(prices.fetchedAt, carbon.fetchedAt)),
      };
    },
  };
}

export type VppService = ReturnType<typeof createVppService>;
