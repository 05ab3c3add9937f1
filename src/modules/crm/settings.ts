// CRM settings: the deal stage machine (open stages plus won and lost), the retention period and
// the outreach templates; the organisation's salt for suppression keys lives in the same row.
import { randomBytes } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { crmStore, type SettingsRow } from './store.ts';

export const WON = 'won';
export const LOST = 'lost';
export const DEFAULT_STAGES = [
  { name: 'lead', probability: 10 },
  { name: 'qualified', probability: 25 },
  { name: 'proposal', probability: 50 },
  { name: 'negotiation', probability: 75 },
];
export const DEFAULT_RETENTION_DAYS = 730;
export const DEFAULT_TEMPLATES = [
  {
    name: 'introduction',
    subject: 'Energy management for {{account}}',
    body: 'Dear {{first_name}},\n\nThank you for your time. We would be glad to show {{account}} how its sites could cut energy costs.\n\nKind regards',
  },
];

export interface Settings {
  stages: { name: string; probability: number; final: boolean }[];
  retention_days: number;
  templates: { name: string; subject: string; body: string }[];
  updated_at: string | null;
}

/** The pipeline of a settings row: its open stages, then won and lost. */
export const stagesOf = (row: Pick<SettingsRow, 'stages'>): Settings['stages'] => [
  ...row.stages.map((s) => ({ ...s, final: false })),
  { name: WON, probability: 100, final: true },
  { name: LOST, probability: 0, final: true },
];

const settingsView = (row: SettingsRow, fresh = false): Settings => ({
  stages: stagesOf(row),
  retention_days: row.retention_days,
  templates: row.templates,
  updated_at: fresh ? null : isoTime(row.updated_at),
});

export function createCrmSettings(deps: { db: Db; clock: Clock; audit: AuditLog }) {
  const { db, clock, audit } = deps;

  /** The organisation's settings row, written with the defaults and a new salt the first time. */
  async function row(q: Queryable, orgId: string): Promise<SettingsRow> {
    const found = await crmStore.getSettings(q, orgId);
    if (found) return found;
    await crmStore.putSettings(q, orgId, {
      stages: DEFAULT_STAGES,
      retention_days: DEFAULT_RETENTION_DAYS,
      templates: DEFAULT_TEMPLATES,
      salt: randomBytes(32).toString('base64url'),
      now: clock.now(),
    });
    return (await crmStore.getSettings(q, orgId))!;
  }

  return {
    row,
    async getSettings(ctx: RequestContext): Promise<Settings> {
      const found = await crmStore.getSettings(db, ctx.orgId);
      if (!found)
        return { stages: stagesOf({ stages: DEFAULT_STAGES }), retention_days: DEFAULT_RETENTION_DAYS, templates: DEFAULT_TEMPLATES, updated_at: null };
      return settingsView(found);
    },
    async putSettings(
      ctx: RequestContext,
      body: { stages: { name: string; probability: number }[]; retention_days: number; templates: Settings['templates'] },
    ) {
      const names = body.stages.map((s) => s.name);
      names.forEach((n, i) => {
        if (n === WON || n === LOST) throw crmErrors.field(['stages', i, 'name'], `${n} is a closed stage every pipeline has; list open stages only`, n);
        if (names.indexOf(n) !== i) throw crmErrors.field(['stages', i, 'name'], `Stage ${n} is listed twice`, n);
      });
      const t = body.templates.map((x) => x.name);
      t.forEach((n, i) => {
        if (t.indexOf(n) !== i) throw crmErrors.field(['templates', i, 'name'], `Template ${n} is listed twice`, n);
      });
      return db.tx(async (q) => {
        const current = await row(q, ctx.orgId);
        const removed = current.stages.map((s) => s.name).filter((n) => !names.includes(n));
        if (removed.length) {
          const inUse = await crmStore.dealsInStages(q, ctx.orgId, removed);
          if (inUse.length) throw crmErrors.stageInUse(inUse.map((r) => r.stage));
        }
        await crmStore.putSettings(q, ctx.orgId, { ...body, salt: current.salt, now: clock.now() });
        await audit.record(q, ctx, { action: 'crm.settings.update', details: { stages: names, retention_days: body.retention_days, templates: t } });
        return settingsView((await crmStore.getSettings(q, ctx.orgId))!);
      });
    },
  };
}

export type CrmSettings = ReturnType<typeof createCrmSettings>;
