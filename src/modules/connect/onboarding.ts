// Site onboarding: templates, from-template (site assets made through the registry, a device
// mapping proposed from devices already reporting), confirm (the clock stops) and run timings.
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { pageAfter } from '../../platform/cursor.ts';
import { AppError, errors } from '../../platform/errors.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { connectErrors } from './errors.ts';
import { runStore, templateStore, type RunRow } from './store.ts';
import {
  BUILT_IN_TEMPLATES,
  PROPOSAL_METHOD,
  isBuiltInId,
  placeholderId,
  propose,
  templateRefusal,
  type ProposalEntry,
  type Slot,
  type Template,
} from './templates.ts';

export const TIMINGS_METHOD =
  'Time to confirm is confirmed_at minus started_at of each confirmed run of the organisation; the median is the middle value ' +
  '(the mean of the two middle values for an even count) and p90 the nearest-rank 90th percentile, in seconds.';

export const actorId = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? `key:${ctx.actor.keyId}` : null);

/** Median (mean of the middle two for an even count) and nearest-rank p90 of sorted values. */
export function medianAndP90(sorted: readonly number[]): { median: number | null; p90: number | null } {
  const n = sorted.length;
  if (!n) return { median: null, p90: null };
  const median = n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  const p90 = sorted[Math.ceil(0.9 * n) - 1];
  return { median, p90 };
}

const seconds = (ms: number | string | null) => (ms === null ? null : Number(ms) / 1000);

export interface MappingEdit {
  slot: string;
  device_id: string | null;
}

export function createOnboarding(deps: { db: Db; clock: Clock; audit: AuditLog; registry: RegistrySites; cursors: CursorCodec }) {
  const { db, clock, audit, registry, cursors } = deps;

  function runView(r: RunRow) {
    return {
      run_id: r.run_id,
      site_id: r.site_id,
      template_id: r.template_id,
      status: r.confirmed_at ? ('confirmed' as const) : ('proposed' as const),
      started_at: isoTime(r.started_at),
      started_by: r.started_by,
      confirmed_at: isoTimeOrNull(r.confirmed_at),
      confirmed_by: r.confirmed_by,
      elapsed_seconds: seconds(r.elapsed_ms),
      proposal: { entries: r.proposal.entries, unassigned_devices: r.proposal.unassigned_devices, method: PROPOSAL_METHOD },
      mapping: r.mapping,
    };
  }

  async function templates(orgId: string): Promise<Template[]> {
    const own = await templateStore.list(db, orgId);
    return [
      ...BUILT_IN_TEMPLATES,
      ...own.map((t) => ({ template_id: t.template_id, name: t.name, description: t.description, built_in: false, slots: t.slots })),
    ];
  }

  return {
    templates: (ctx: RequestContext) => templates(ctx.orgId),

    async addTemplate(
      ctx: RequestContext,
      body: {
        template_id: string;
        name: string;
        description?: string;
        slots: (Omit<Slot, 'type' | 'parent_slot' | 'required' | 'keywords'> & Partial<Slot>)[];
      },
    ) {
      if (isBuiltInId(body.template_id))
        throw connectErrors.field(['template_id'], "Ids starting with 'gb-' are reserved for built-in templates", body.template_id);
      const slots: Slot[] = body.slots.map((s) => ({
        slot: s.slot,
        asset_class: s.asset_class,
        type: s.type ?? s.asset_class,
        name: s.name,
        parent_slot: s.parent_slot ?? null,
        required: s.required ?? true,
        keywords: s.keywords ?? [],
      }));
      const refusal = templateRefusal(slots);
      if (refusal) throw connectErrors.field(['slots', refusal.index, refusal.field], refusal.message, body.slots[refusal.index][refusal.field] ?? null);
      const now = clock.now();
      const t = { template_id: body.template_id, name: body.name, description: body.description ?? '', slots };
      await db.tx(async (q) => {
        if (!(await templateStore.insert(q, ctx.orgId, t, actorId(ctx), now))) throw connectErrors.templateExists();
        await audit.record(q, ctx, {
          action: 'connect.template.create',
          targetType: 'site_template',
          targetId: t.template_id,
          details: { slots: slots.length },
        });
      });
      return { ...t, built_in: false };
    },

    async fromTemplate(ctx: RequestContext, body: { template_id: string; site_id: string; omit_slots?: string[] }) {
      const template = (await templates(ctx.orgId)).find((t) => t.template_id === body.template_id);
      if (!template) throw connectErrors.field(['template_id'], 'No built-in or organisation template with this id', body.template_id);
      const omit = new Set(body.omit_slots ?? []);
      for (const [i, name] of (body.omit_slots ?? []).entries()) {
        const s = template.slots.find((x) => x.slot === name);
        if (!s) throw connectErrors.field(['omit_slots', i], `The template has no slot '${name}'`, name);
        if (s.required) throw connectErrors.field(['omit_slots', i], `Slot '${name}' is required by the template`, name);
      }
      const kept = template.slots.filter((s) => !omit.has(s.slot));
      for (const s of kept) {
        if (s.parent_slot && omit.has(s.parent_slot)) {
          throw connectErrors.field(['omit_slots'], `Slot '${s.slot}' sits under '${s.parent_slot}'; omit it too`, body.omit_slots);
        }
      }
      const slots = kept.map((s) => ({ slot: s, asset_id: placeholderId(body.site_id, s.slot) }));
      const idOf = new Map(slots.map((s) => [s.slot.slot, s.asset_id]));
      const now = clock.now();
      const runId = randomUUID();
      return db.tx(async (q) => {
        if ((await registry.siteAssets(q, ctx.orgId, body.site_id)).length) throw connectErrors.siteHasAssets();
        const assets = await registry.createAssets(
          q,
          ctx.orgId,
          body.site_id,
          slots.map(({ slot: s, asset_id }) => ({
            asset_id,
            asset_class: s.asset_class,
            type: s.type,
            name: s.name,
            details: { onboarding: { run_id: runId, template_id: template.template_id, slot: s.slot } },
            parent_asset_id: s.parent_slot ? idOf.get(s.parent_slot)! : null,
          })),
        );
        const devices = await registry.reportingUnregistered(q, ctx.orgId);
        const proposal = propose(slots, body.site_id, devices);
        await runStore.insert(
          q,
          ctx.orgId,
          {
            run_id: runId,
            site_id: body.site_id,
            template_id: template.template_id,
            template: template,
            slots: slots.map((s) => ({ slot: s.slot.slot, asset_id: s.asset_id })),
            proposal,
            started_by: actorId(ctx),
          },
          now,
        );
        for (const a of assets) {
          await audit.record(q, ctx, {
            action: 'twin.asset.create',
            targetType: 'asset',
            targetId: a.asset_id,
            details: { site_id: body.site_id, type: a.type, asset_class: a.asset_class, parent_asset_id: a.parent_asset_id, via: 'onboarding', run_id: runId },
          });
        }
        await audit.record(q, ctx, {
          action: 'connect.onboarding.start',
          targetType: 'site',
          targetId: body.site_id,
          details: { run_id: runId, template_id: template.template_id, assets: assets.length, proposed: proposal.entries.filter((e) => e.device_id).length },
        });
        const run = (await runStore.latestForSite(q, ctx.orgId, body.site_id))!;
        return { run: runView(run), assets };
      });
    },

    async siteOnboarding(ctx: RequestContext, siteId: string) {
      const run = await runStore.latestForSite(db, ctx.orgId, siteId);
      if (!run) throw errors.notFound();
      const assets = (await registry.siteAssets(db, ctx.orgId, siteId)).map((a) => ({
        asset_id: a.asset_id,
        asset_class: a.asset_class,
        name: a.name,
        parent_asset_id: a.parent_asset_id,
        freshness: a.freshness,
        last_reported_at: a.last_reported_at,
      }));
      return { run: runView(run), confirmed_mapping: run.mapping, assets };
    },

    async confirm(ctx: RequestContext, siteId: string, body: { mapping?: MappingEdit[] }) {
      const now = clock.now();
      return db.tx(async (q) => {
        const run = await runStore.latestForSite(q, ctx.orgId, siteId, { forUpdate: true });
        if (!run) throw errors.notFound();
        if (run.confirmed_at) throw connectErrors.alreadyConfirmed();
        const entries = run.proposal.entries as ProposalEntry[];
        const edits = new Map<string, string | null>();
        for (const [i, e] of (body.mapping ?? []).entries()) {
          if (!entries.some((x) => x.slot === e.slot)) throw connectErrors.field(['mapping', i, 'slot'], `The run has no slot '${e.slot}'`, e.slot);
          if (edits.has(e.slot)) throw connectErrors.field(['mapping', i, 'slot'], `Slot '${e.slot}' is listed twice`, e.slot);
          edits.set(e.slot, e.device_id);
        }
        const final = entries.map((e) => {
          const edited = edits.has(e.slot);
          const device = edited ? edits.get(e.slot)! : e.device_id;
          return {
            slot: e.slot,
            placeholder: e.asset_id,
            asset_id: device ?? e.asset_id,
            device_id: device,
            source: edited && device !== e.device_id ? ('edited' as const) : ('proposed' as const),
            confidence: edited && device !== e.device_id ? null : e.device_id ? e.confidence : null,
          };
        });
        const used = new Map<string, string>();
        for (const [i, f] of final.entries()) {
          if (!f.device_id) {
            if (entries[i].required) throw connectErrors.field(['mapping'], `Slot '${f.slot}' is required: map a device to it`, null);
            continue;
          }
          if (used.has(f.device_id))
            throw connectErrors.field(['mapping'], `Device '${f.device_id}' is mapped to both '${used.get(f.device_id)}' and '${f.slot}'`, f.device_id);
          used.set(f.device_id, f.slot);
        }
        const others = [...used.keys()].filter((d) => !final.some((f) => f.placeholder === d));
        const registered = await registry.registeredIds(q, ctx.orgId, others);
        if (registered.size) {
          const d = [...registered][0];
          throw connectErrors.field(['mapping'], `Device '${d}' is already registered as an asset`, d);
        }
        for (const f of final) {
          if (!f.device_id || f.device_id === f.placeholder) continue;
          await registry.adoptDevice(q, ctx.orgId, f.placeholder, f.device_id);
          await audit.record(q, ctx, {
            action: 'twin.asset.update',
            targetType: 'asset',
            targetId: f.device_id,
            details: { fields: ['asset_id'], renamed_from: f.placeholder, via: 'onboarding', run_id: run.run_id },
          });
        }
        const mapping = final.map(({ slot, asset_id, device_id, source, confidence }) => ({ slot, asset_id, device_id, source, confidence }));
        const done = await runStore.confirm(q, ctx.orgId, run.run_id, mapping, actorId(ctx), now);
        if (!done) throw connectErrors.alreadyConfirmed();
        await audit.record(q, ctx, {
          action: 'connect.onboarding.confirm',
          targetType: 'site',
          targetId: siteId,
          details: { run_id: run.run_id, mapped: used.size, edited: final.filter((f) => f.source === 'edited').length, elapsed_ms: Number(done.elapsed_ms) },
        });
        return runView(done);
      });
    },

    async runs(ctx: RequestContext, query: { limit?: number; cursor?: string; site_id?: string }) {
      const limit = query.limit ?? 50;
      const binding = { op: 'listOnboardingRuns', orgId: ctx.orgId, filters: { site_id: query.site_id ?? null } };
      const paged = pageAfter(cursors, binding, query.cursor, limit);
      const page = paged.page(await runStore.page(db, ctx.orgId, { before: paged.after, siteId: query.site_id, limit }), (r) => ({ t: r.pos, id: r.run_id }));
      const t = await runStore.timings(db, ctx.orgId);
      const { median, p90 } = medianAndP90(t.elapsed);
      return {
        runs: page.items.map((r) => {
          const { proposal, mapping, ...rest } = runView(r);
          return {
            ...rest,
            slots: proposal.entries.length,
            proposed_devices: proposal.entries.filter((e: ProposalEntry) => e.device_id).length,
            mapped_devices: mapping ? mapping.filter((m: { device_id: string | null }) => m.device_id).length : null,
          };
        }),
        summary: {
          runs: t.runs,
          confirmed: t.confirmed,
          open: t.runs - t.confirmed,
          median_seconds: median === null ? null : median / 1000,
          p90_seconds: p90 === null ? null : p90 / 1000,
          method: TIMINGS_METHOD,
        },
        next_cursor: page.next_cursor,
        has_more: page.has_more,
      };
    },
  };
}

export type Onboarding = ReturnType<typeof createOnboarding>;
export { AppError };
