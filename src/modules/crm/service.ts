// CRM rules: settings with the deal stage machine, the records, personal-data duties (opt-out,
// erasure, outreach drafts, retention) and the weighted forecast. SQL lives in store.ts.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CursorCodec } from '../../platform/cursor.ts';
import { toPage } from '../../platform/cursor.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { e164, identityMatcher, legacyPhoneKey, normaliseEmail } from './identity.ts';
import * as store from './store.ts';
import type { Kind, Row } from './store.ts';

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
const DAY_MS = 86_400_000;

export interface Settings {
  stages: { name: string; probability: number; final: boolean }[];
  retention_days: number;
  templates: { name: string; subject: string; body: string }[];
  updated_at: string | null;
}

const dateOnly = (d: unknown) => (d === null || d === undefined ? null : d instanceof Date ? d.toISOString().slice(0, 10) : String(d).slice(0, 10));

export function createCrm(deps: { db: Db; clock: Clock; cursors: CursorCodec; audit: AuditLog }) {
  const { db, clock, cursors, audit } = deps;
  const userOf = (ctx: RequestContext) => (ctx.actor.kind === 'user' ? ctx.actor.userId : ctx.actor.kind === 'key' ? ctx.actor.keyId : null);

  async function settingsRow(q: Queryable, orgId: string): Promise<Row> {
    const row = await store.getSettings(q, orgId);
    if (row) return row;
    await store.putSettings(q, orgId, {
      stages: DEFAULT_STAGES,
      retention_days: DEFAULT_RETENTION_DAYS,
      templates: DEFAULT_TEMPLATES,
      salt: randomBytes(32).toString('base64url'),
      now: clock.now(),
    });
    return (await store.getSettings(q, orgId))!;
  }
  const stagesOf = (row: Row): Settings['stages'] => [
    ...(row.stages as { name: string; probability: number }[]).map((s) => ({ ...s, final: false })),
    { name: WON, probability: 100, final: true },
    { name: LOST, probability: 0, final: true },
  ];
  const settingsView = (row: Row, fresh = false): Settings => ({
    stages: stagesOf(row),
    retention_days: row.retention_days,
    templates: row.templates,
    updated_at: fresh ? null : isoTime(row.updated_at),
  });

  /**
   * Suppression keys of addresses and numbers: `email:<normalised>` and `phone:<E.164 digits>`, plus
   * the earlier phone key where it differs (decision 0221's digits; still on older lists).
   */
  function hashes(salt: string, c: { email?: string | null; phone?: string | null; emails?: string[]; phones?: string[] }): string[] {
    const h = (v: string) => createHmac('sha256', salt).update(v).digest('hex');
    const out = new Set<string>();
    for (const e of [c.email, ...(c.emails ?? [])]) if (e) out.add(h(`email:${normaliseEmail(e)}`));
    for (const p of [c.phone, ...(c.phones ?? [])]) {
      if (!p) continue;
      const n = e164(p);
      if (n) out.add(h(`phone:${n.slice(1)}`));
      if (legacyPhoneKey(p)) out.add(h(`phone:${legacyPhoneKey(p)}`));
    }
    return [...out];
  }
  /** Records the name, address and number a contact holds now among those it ever held. */
  async function remember(q: Queryable, orgId: string, contactId: string, c: Row) {
    const values: { kind: 'name' | 'email' | 'phone'; value: string }[] = [];
    for (const kind of ['name', 'email', 'phone'] as const) if (typeof c[kind] === 'string' && c[kind]) values.push({ kind, value: c[kind] });
    await store.addIdentities(q, orgId, contactId, values, clock.now());
  }

  const views: Record<Kind, (r: Row) => Row> = {
    account: (r) => ({
      id: r.id,
      name: r.name,
      domain: r.domain,
      kind: r.kind,
      notes: r.notes,
      created_at: isoTime(r.created_at),
      updated_at: isoTime(r.updated_at),
    }),
    contact: (r) => ({
      id: r.id,
      account_id: r.account_id,
      name: r.name,
      email: r.email,
      phone: r.phone,
      job_title: r.job_title,
      opted_out: r.opted_out_at !== null,
      opted_out_at: isoTimeOrNull(r.opted_out_at),
      erased: r.erased_at !== null,
      erased_at: isoTimeOrNull(r.erased_at),
      last_engaged_at: isoTimeOrNull(r.last_engaged_at),
      created_at: isoTime(r.created_at),
      updated_at: isoTime(r.updated_at),
    }),
    deal: (r) => ({
      id: r.id,
      account_id: r.account_id,
      contact_id: r.contact_id,
      title: r.title,
      value: String(r.value),
      currency: r.currency,
      stage: r.stage,
      expected_close: dateOnly(r.expected_close),
      created_at: isoTime(r.created_at),
      updated_at: isoTime(r.updated_at),
    }),
    activity: (r) => ({
      id: r.id,
      kind: r.kind,
      account_id: r.account_id,
      contact_id: r.contact_id,
      deal_id: r.deal_id,
      subject: r.subject,
      body: r.body,
      occurred_at: isoTime(r.occurred_at),
      created_at: isoTime(r.created_at),
    }),
    task: (r) => ({
      id: r.id,
      title: r.title,
      due_at: isoTime(r.due_at),
      account_id: r.account_id,
      contact_id: r.contact_id,
      deal_id: r.deal_id,
      assignee_id: r.assignee_id,
      done: r.done_at !== null,
      done_at: isoTimeOrNull(r.done_at),
      created_at: isoTime(r.created_at),
      updated_at: isoTime(r.updated_at),
    }),
  };
  const NAMES: Record<Kind, string> = { account: 'Account', contact: 'Contact', deal: 'Deal', activity: 'Activity', task: 'Task' };

  async function must(q: Queryable, kind: Kind, orgId: string, id: string, lock = false): Promise<Row> {
    const row = await store.get(q, kind, orgId, id, lock);
    if (!row) throw crmErrors.notFound(NAMES[kind]);
    return row;
  }
  /** A reference in a body: 422 naming the member when it is not one of the organisation's rows. */
  async function ref(q: Queryable, kind: Kind, orgId: string, id: string | null | undefined, member: string) {
    if (id === undefined || id === null) return;
    if (!(await store.get(q, kind, orgId, id))) throw crmErrors.field([member], `No ${kind} ${id} in this organisation`, id);
  }

  async function page(ctx: RequestContext, kind: Kind, op: string, query: Row, filters: Row, order: string, extra?: string) {
    const limit = query.limit ?? 50;
    const binding = { op, orgId: ctx.orgId, filters };
    const after = query.cursor ? cursors.decode(query.cursor, binding) : undefined;
    const rows = await store.list(db, kind, ctx.orgId, {
      order,
      filters,
      limit,
      ...(after && { after: { t: after.t, id: String(after.id) } }),
      ...(extra && { extra }),
    });
    return toPage(rows, limit, (r) => ({ t: isoTime(r[order]), id: r.id }), cursors, binding);
  }

  async function touchContact(q: Queryable, orgId: string, contactId: string | null | undefined, at: Date) {
    if (!contactId) return;
    await q.query(`update crm_contacts set last_engaged_at = greatest(coalesce(last_engaged_at, $3), $3) where org_id = $1 and id = $2`, [
      orgId,
      contactId,
      at,
    ]);
  }

  /**
   * Erases one contact in the caller's transaction; answers what was erased. Matches every name,
   * address and number the person ever held (decision 0295): the current ones, the earlier ones
   * kept in crm_contact_identities, and the address the audit log recorded at creation (contacts
   * changed before that table existed).
   */
  async function eraseIn(q: Queryable, ctx: RequestContext | { orgId: string; system: true }, orgId: string, c: Row, reason: string) {
    const settings = await settingsRow(q, orgId);
    const now = clock.now();
    const held = { names: [] as string[], emails: [] as string[], phones: [] as string[] };
    const add = (kind: string, v: unknown) => {
      if (typeof v !== 'string' || !v.trim()) return;
      if (kind === 'name') held.names.push(v);
      else if (kind === 'email') held.emails.push(v);
      else if (kind === 'phone') held.phones.push(v);
    };
    for (const kind of ['name', 'email', 'phone']) add(kind, c[kind]);
    for (const r of await store.identities(q, orgId, c.id)) add(r.kind, r.value);
    for (const d of await audit.detailsAbout(q, orgId, 'crm_contact', c.id, ['crm.contact.create'])) add('email', d.email);
    for (const h of hashes(settings.salt, held)) await store.addSuppression(q, orgId, h, 'erased', now);
    const fields = (['name', 'email', 'phone', 'job_title'] as const).filter((f) => c[f] !== null);
    const cleared = await q.query(`update crm_activities set body = null where org_id = $1 and contact_id = $2 and body is not null`, [orgId, c.id]);
    await store.update(q, 'contact', orgId, c.id, {
      name: null,
      email: null,
      phone: null,
      job_title: null,
      erased_at: now,
      opted_out_at: c.opted_out_at ?? now,
      updated_at: now,
    });
    await store.removeIdentities(q, orgId, c.id);
    const matcher = identityMatcher(held);
    const replaced = matcher.empty ? 0 : await store.redactText(q, orgId, matcher.anchors, matcher.redact);
    const auditEntries = matcher.empty ? 0 : await audit.redact(q, orgId, matcher);
    const who = 'system' in ctx ? { orgId, actorType: 'system' as const, actorId: null } : ctx;
    await audit.record(q, who, { action: 'crm.contact.erase', targetType: 'crm_contact', targetId: c.id, details: { reason, fields } });
    return {
      contact_id: c.id,
      erased_at: isoTime(now),
      erased: { contact_fields: fields, activity_bodies: cleared.rowCount ?? 0, text_mentions: replaced, audit_entries: auditEntries },
      suppression: 'Email address and phone number kept only as salted hashes, so the person stays suppressed',
    };
  }

  return {
    views,
    async getSettings(ctx: RequestContext): Promise<Settings> {
      const row = await store.getSettings(db, ctx.orgId);
      if (!row) return { stages: stagesOf({ stages: DEFAULT_STAGES }), retention_days: DEFAULT_RETENTION_DAYS, templates: DEFAULT_TEMPLATES, updated_at: null };
      return settingsView(row);
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
        const current = await settingsRow(q, ctx.orgId);
        const removed = (current.stages as { name: string }[]).map((s) => s.name).filter((n) => !names.includes(n));
        if (removed.length) {
          const inUse = await store.dealsInStages(q, ctx.orgId, removed);
          if (inUse.length) throw crmErrors.stageInUse(inUse.map((r) => r.stage));
        }
        await store.putSettings(q, ctx.orgId, { ...body, salt: current.salt, now: clock.now() });
        await audit.record(q, ctx, { action: 'crm.settings.update', details: { stages: names, retention_days: body.retention_days, templates: t } });
        return settingsView((await store.getSettings(q, ctx.orgId))!);
      });
    },

    // Accounts
    listAccounts: (ctx: RequestContext, query: Row) =>
      page(ctx, 'account', 'listCrmAccounts', query, { kind: query.kind }, 'created_at').then((p) => ({
        accounts: p.items.map(views.account),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createAccount(ctx: RequestContext, body: Row) {
      const now = clock.now();
      return db.tx(async (q) => {
        const row = await store.insert(q, 'account', ctx.orgId, {
          id: `acc_${randomUUID()}`,
          name: body.name,
          domain: body.domain ?? null,
          kind: body.kind ?? 'prospect',
          notes: body.notes ?? null,
          created_at: now,
          updated_at: now,
        });
        await audit.record(q, ctx, { action: 'crm.account.create', targetType: 'crm_account', targetId: row.id });
        return views.account(row);
      });
    },
    getAccount: async (ctx: RequestContext, id: string) => views.account(await must(db, 'account', ctx.orgId, id)),
    async patchAccount(ctx: RequestContext, id: string, body: Row) {
      return db.tx(async (q) => {
        await must(q, 'account', ctx.orgId, id, true);
        const row = await store.update(q, 'account', ctx.orgId, id, { ...body, updated_at: clock.now() });
        await audit.record(q, ctx, { action: 'crm.account.update', targetType: 'crm_account', targetId: id, details: { fields: Object.keys(body) } });
        return views.account(row!);
      });
    },
    async deleteAccount(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'account', ctx.orgId, id, true);
        const contacts = await store.count(q, 'contact', ctx.orgId, 'account_id', id);
        const deals = await store.count(q, 'deal', ctx.orgId, 'account_id', id);
        if (contacts || deals) throw crmErrors.accountInUse(contacts, deals);
        await store.remove(q, 'account', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.account.delete', targetType: 'crm_account', targetId: id });
      });
    },

    // Contacts
    listContacts: (ctx: RequestContext, query: Row) =>
      page(
        ctx,
        'contact',
        'listCrmContacts',
        query,
        { account_id: query.account_id },
        'created_at',
        query.include_erased ? undefined : 'erased_at is null',
      ).then((p) => ({
        contacts: p.items.map(views.contact),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createContact(ctx: RequestContext | { orgId: string; system: true }, body: Row, q0?: Queryable) {
      const orgId = ctx.orgId;
      const run = async (q: Queryable) => {
        await ref(q, 'account', orgId, body.account_id, 'account_id');
        const settings = await settingsRow(q, orgId);
        const now = clock.now();
        // A suppressed address or number comes in opted out: nothing re-subscribes it.
        const isSuppressed = await store.suppressed(q, orgId, hashes(settings.salt, body));
        const row = await store.insert(q, 'contact', orgId, {
          id: `con_${randomUUID()}`,
          account_id: body.account_id ?? null,
          name: body.name,
          email: body.email ? normaliseEmail(body.email) : null,
          phone: body.phone ?? null,
          job_title: body.job_title ?? null,
          opted_out_at: isSuppressed ? now : null,
          created_at: now,
          updated_at: now,
        });
        await remember(q, orgId, row.id, row);
        const who = 'system' in ctx ? { orgId, actorType: 'system' as const, actorId: null } : ctx;
        await audit.record(q, who, {
          action: 'crm.contact.create',
          targetType: 'crm_contact',
          targetId: row.id,
          details: { email: row.email, suppressed: isSuppressed },
        });
        return views.contact(row);
      };
      return q0 ? run(q0) : db.tx(run);
    },
    getContact: async (ctx: RequestContext, id: string) => views.contact(await must(db, 'contact', ctx.orgId, id)),
    async patchContact(ctx: RequestContext, id: string, body: Row) {
      return db.tx(async (q) => {
        const c = await must(q, 'contact', ctx.orgId, id, true);
        if (c.erased_at) throw crmErrors.erased();
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        const set: Row = { ...body, updated_at: clock.now() };
        if (body.email) set.email = normaliseEmail(body.email);
        // A new address or number that is suppressed makes the contact opted out.
        if (!c.opted_out_at && (body.email || body.phone)) {
          const settings = await settingsRow(q, ctx.orgId);
          if (await store.suppressed(q, ctx.orgId, hashes(settings.salt, { email: body.email, phone: body.phone }))) set.opted_out_at = clock.now();
        }
        const row = await store.update(q, 'contact', ctx.orgId, id, set);
        // Earlier values stay known to erasure (those held before the history existed included).
        await remember(q, ctx.orgId, id, c);
        await remember(q, ctx.orgId, id, row!);
        await audit.record(q, ctx, { action: 'crm.contact.update', targetType: 'crm_contact', targetId: id, details: { fields: Object.keys(body) } });
        return views.contact(row!);
      });
    },
    async optOut(ctx: RequestContext, id: string) {
      return db.tx(async (q) => {
        const c = await must(q, 'contact', ctx.orgId, id, true);
        if (c.erased_at) return views.contact(c);
        const settings = await settingsRow(q, ctx.orgId);
        const now = clock.now();
        for (const h of hashes(settings.salt, c)) await store.addSuppression(q, ctx.orgId, h, 'opt_out', now);
        if (c.opted_out_at) return views.contact(c);
        const row = await store.update(q, 'contact', ctx.orgId, id, { opted_out_at: now, updated_at: now });
        await audit.record(q, ctx, { action: 'crm.contact.opt_out', targetType: 'crm_contact', targetId: id });
        return views.contact(row!);
      });
    },
    async erase(ctx: RequestContext, id: string) {
      return db.tx(async (q) => {
        const c = await must(q, 'contact', ctx.orgId, id, true);
        if (c.erased_at) throw crmErrors.erased();
        return eraseIn(q, ctx, ctx.orgId, c, 'request');
      });
    },
    async outreachDraft(ctx: RequestContext, id: string, body: { template: string; deal_id?: string }) {
      const c = await must(db, 'contact', ctx.orgId, id);
      if (c.erased_at) throw crmErrors.erased();
      const settings = await settingsRow(db, ctx.orgId);
      if (c.opted_out_at || (await store.suppressed(db, ctx.orgId, hashes(settings.salt, c)))) throw crmErrors.suppressed();
      if (!c.email) throw crmErrors.noEmail();
      const tpl = (settings.templates as Settings['templates']).find((t) => t.name === body.template);
      if (!tpl)
        throw crmErrors.field(
          ['template'],
          `No template ${body.template}; the settings name: ${(settings.templates as Settings['templates']).map((t) => t.name).join(', ') || 'none'}`,
          body.template,
        );
      const deal = body.deal_id ? await store.get(db, 'deal', ctx.orgId, body.deal_id) : null;
      if (body.deal_id && !deal) throw crmErrors.field(['deal_id'], `No deal ${body.deal_id} in this organisation`, body.deal_id);
      const account = c.account_id ? await store.get(db, 'account', ctx.orgId, c.account_id) : null;
      const values: Record<string, string> = {
        name: c.name ?? '',
        first_name: String(c.name ?? '').split(/\s+/)[0] ?? '',
        account: account?.name ?? '',
        deal: deal?.title ?? '',
      };
      const fill = (s: string) => s.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
      return { contact_id: c.id, template: tpl.name, to: c.email, subject: fill(tpl.subject), body: fill(tpl.body), sent: false };
    },

    // Deals
    listDeals: (ctx: RequestContext, query: Row) =>
      page(ctx, 'deal', 'listCrmDeals', query, { account_id: query.account_id, stage: query.stage }, 'created_at').then((p) => ({
        deals: p.items.map(views.deal),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createDeal(ctx: RequestContext, body: Row) {
      return db.tx(async (q) => {
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        const stages = stagesOf(await settingsRow(q, ctx.orgId));
        const stage = body.stage ?? stages[0]!.name;
        if (!stages.some((s) => s.name === stage && !s.final))
          throw crmErrors.field(
            ['stage'],
            `A deal starts in an open stage: ${stages
              .filter((s) => !s.final)
              .map((s) => s.name)
              .join(', ')}`,
            stage,
          );
        const now = clock.now();
        const row = await store.insert(q, 'deal', ctx.orgId, {
          id: `deal_${randomUUID()}`,
          account_id: body.account_id,
          contact_id: body.contact_id ?? null,
          title: body.title,
          value: body.value,
          currency: body.currency ?? 'GBP',
          stage,
          expected_close: body.expected_close ?? null,
          created_at: now,
          updated_at: now,
        });
        await store.addMove(q, ctx.orgId, {
          id: `mv_${randomUUID()}`,
          deal_id: row.id,
          from_stage: null,
          to_stage: stage,
          reason: null,
          moved_by: userOf(ctx),
          moved_at: now,
        });
        await audit.record(q, ctx, { action: 'crm.deal.create', targetType: 'crm_deal', targetId: row.id });
        return { ...views.deal(row), moves: (await store.moves(q, ctx.orgId, row.id)).map(moveView) };
      });
    },
    async getDeal(ctx: RequestContext, id: string) {
      const row = await must(db, 'deal', ctx.orgId, id);
      return { ...views.deal(row), moves: (await store.moves(db, ctx.orgId, id)).map(moveView) };
    },
    async patchDeal(ctx: RequestContext, id: string, body: Row) {
      return db.tx(async (q) => {
        await must(q, 'deal', ctx.orgId, id, true);
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        const row = await store.update(q, 'deal', ctx.orgId, id, { ...body, updated_at: clock.now() });
        await audit.record(q, ctx, { action: 'crm.deal.update', targetType: 'crm_deal', targetId: id, details: { fields: Object.keys(body) } });
        return { ...views.deal(row!), moves: (await store.moves(q, ctx.orgId, id)).map(moveView) };
      });
    },
    async deleteDeal(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'deal', ctx.orgId, id, true);
        await store.remove(q, 'deal', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.deal.delete', targetType: 'crm_deal', targetId: id });
      });
    },
    async moveStage(ctx: RequestContext, id: string, body: { stage: string; reason?: string }) {
      return db.tx(async (q) => {
        const deal = await must(q, 'deal', ctx.orgId, id, true);
        const stages = stagesOf(await settingsRow(q, ctx.orgId));
        if (!stages.some((s) => s.name === body.stage))
          throw crmErrors.field(['stage'], `Unknown stage; the pipeline has: ${stages.map((s) => s.name).join(', ')}`, body.stage);
        if (deal.stage === WON || deal.stage === LOST) throw crmErrors.stageClosed(deal.stage);
        if (deal.stage === body.stage) throw crmErrors.sameStage(body.stage);
        const now = clock.now();
        const row = await store.update(q, 'deal', ctx.orgId, id, { stage: body.stage, updated_at: now });
        await store.addMove(q, ctx.orgId, {
          id: `mv_${randomUUID()}`,
          deal_id: id,
          from_stage: deal.stage,
          to_stage: body.stage,
          reason: body.reason ?? null,
          moved_by: userOf(ctx),
          moved_at: now,
        });
        await audit.record(q, ctx, { action: 'crm.deal.stage', targetType: 'crm_deal', targetId: id, details: { from: deal.stage, to: body.stage } });
        return { ...views.deal(row!), moves: (await store.moves(q, ctx.orgId, id)).map(moveView) };
      });
    },
    async forecast(ctx: RequestContext) {
      const settings = await store.getSettings(db, ctx.orgId);
      const stages = stagesOf(settings ?? { stages: DEFAULT_STAGES }).filter((s) => !s.final);
      const prob = new Map(stages.map((s) => [s.name, s.probability]));
      const rows = await store.pipeline(
        db,
        ctx.orgId,
        stages.map((s) => s.name),
      );
      // Exact decimals: pence as BigInt, weighted = value x probability / 100 rounded half up to the penny.
      const pence = (v: string) => {
        const [i, f = ''] = v.split('.');
        const neg = i!.startsWith('-');
        const p = BigInt(i!.replace('-', '')) * 100n + BigInt((f + '00').slice(0, 2));
        return neg ? -p : p;
      };
      const fmt = (p: bigint) => {
        const neg = p < 0n;
        const a = neg ? -p : p;
        return `${neg ? '-' : ''}${a / 100n}.${String(a % 100n).padStart(2, '0')}`;
      };
      const weigh = (p: bigint, pct: number) => (p * BigInt(pct) * 2n + 100n) / 200n;
      const byKey = new Map<string, { currency: string; month: string; deals: number; value: bigint; weighted: bigint; stages: Row[] }>();
      const totals = new Map<string, { value: bigint; weighted: bigint; deals: number }>();
      for (const r of rows) {
        const key = `${r.currency}|${r.month}`;
        const value = pence(r.total);
        const weighted = weigh(value, prob.get(r.stage) ?? 0);
        const m = byKey.get(key) ?? { currency: r.currency as string, month: r.month as string, deals: 0, value: 0n, weighted: 0n, stages: [] as Row[] };
        m.deals += r.n;
        m.value += value;
        m.weighted += weighted;
        m.stages.push({ stage: r.stage, probability: prob.get(r.stage) ?? 0, deals: r.n, value: fmt(value), weighted: fmt(weighted) });
        byKey.set(key, m);
        const t = totals.get(r.currency) ?? { value: 0n, weighted: 0n, deals: 0 };
        t.value += value;
        t.weighted += weighted;
        t.deals += r.n;
        totals.set(r.currency, t);
      }
      return {
        as_of: isoTime(clock.now()),
        months: [...byKey.values()].map((m) => ({
          month: m.month,
          currency: m.currency,
          deals: m.deals,
          value: fmt(m.value),
          weighted: fmt(m.weighted),
          stages: m.stages,
        })),
        totals: [...totals.entries()].map(([currency, t]) => ({ currency, deals: t.deals, value: fmt(t.value), weighted: fmt(t.weighted) })),
      };
    },

    // Activities
    listActivities: (ctx: RequestContext, query: Row) =>
      page(
        ctx,
        'activity',
        'listCrmActivities',
        query,
        { account_id: query.account_id, contact_id: query.contact_id, deal_id: query.deal_id, kind: query.kind },
        'occurred_at',
      ).then((p) => ({
        activities: p.items.map(views.activity),
        next_cursor: p.next_cursor,
        has_more: p.has_more,
      })),
    async createActivity(ctx: RequestContext, body: Row) {
      if (!body.account_id && !body.contact_id && !body.deal_id)
        throw crmErrors.field(['account_id'], 'An activity names an account, a contact or a deal', null);
      return db.tx(async (q) => {
        await ref(q, 'account', ctx.orgId, body.account_id, 'account_id');
        await ref(q, 'contact', ctx.orgId, body.contact_id, 'contact_id');
        await ref(q, 'deal', ctx.orgId, body.deal_id, 'deal_id');
        const now = clock.now();
        const at = body.occurred_at ? new Date(body.occurred_at) : now;
        const row = await store.insert(q, 'activity', ctx.orgId, {
          id: `act_${randomUUID()}`,
          kind: body.kind,
          account_id: body.account_id ?? null,
          contact_id: body.contact_id ?? null,
          deal_id: body.deal_id ?? null,
          subject: body.subject,
          body: body.body ?? null,
          occurred_at: at,
          created_at: now,
        });
        await touchContact(q, ctx.orgId, body.contact_id, at);
        await audit.record(q, ctx, { action: 'crm.activity.create', targetType: 'crm_activity', targetId: row.id });
        return views.activity(row);
      });
    },
    async deleteActivity(ctx: RequestContext, id: string) {
      await db.tx(async (q) => {
        await must(q, 'activity', ctx.orgId, id, true);
        await store.remove(q, 'activity', ctx.orgId, id);
        await audit.record(q, ctx, { action: 'crm.activity.delete', targetType: 'crm_activity', targetId: id });
      });
    },

    // Tasks
    listTasks: (ctx: RequestContext, query: Row) => {
      const extra = query.done === undefined ? undefined : query.done ? 'done_at is not null' : 'done_at is null';
      return page(
        ctx,
        'task',
        'listCrmTasks',
        query,
        { account_id: query.account_id, deal_id: query.deal_id, assignee_id: query.assignee_id, ...(query.done !== undefined && {}) },
        'created_at',
        extra,
      ).then((p) => ({ tasks: p.items.map(views.task), next_cursor: p.next_cursor, has_more: p.has_more }));
    },
    async createTask(ctx: RequestContext | { orgId: string; system: true }, body: Row, q0?: Queryable) {
      const orgId = ctx.orgId;
      const run = async (q: Queryable) => {
        await ref(q, 'account', orgId, body.account_id, 'account_id');
        await ref(q, 'contact', orgId, body.contact_id, 'contact_id');
        await ref(q, 'deal', orgId, body.deal_id, 'deal_id');
        const now = clock.now();
        const row = await store.insert(q, 'task', orgId, {
          id: `task_${randomUUID()}`,
          title: body.title,
          due_at: new Date(body.due_at),
          account_id: body.account_id ?? null,
          contact_id: body.contact_id ?? null,
          deal_id: body.deal_id ?? null,
          assignee_id: body.assignee_id ?? null,
          created_at: now,
          updated_at: now,
        });
        const who = 'system' in ctx ? { orgId, actorType: 'system' as const, actorId: null } : ctx;
        await audit.record(q, who, { action: 'crm.task.create', targetType: 'crm_task', targetId: row.id });
        return views.task(row);
      };
      return q0 ? run(q0) : db.tx(run);
    },
    async patchTask(ctx: RequestContext, id: string, body: Row) {
      return db.tx(async (q) => {
        const t = await must(q, 'task', ctx.orgId, id, true);
        const now = clock.now();
        const set: Row = { updated_at: now };
        if (body.title !== undefined) set.title = body.title;
        if (body.due_at !== undefined) set.due_at = new Date(body.due_at);
        if (body.assignee_id !== undefined) set.assignee_id = body.assignee_id;
        if (body.done !== undefined) set.done_at = body.done ? (t.done_at ?? now) : null;
        const row = await store.update(q, 'task', ctx.orgId, id, set);
        await audit.record(q, ctx, { action: 'crm.task.update', targetType: 'crm_task', targetId: id, details: { fields: Object.keys(body) } });
        return views.task(row!);
      });
    },
    async dueTasks(ctx: RequestContext, query: { within_hours?: number }) {
      const now = clock.now();
      const until = new Date(now.getTime() + (query.within_hours ?? 24) * 3_600_000);
      const rows = await store.list(db, 'task', ctx.orgId, {
        order: 'due_at',
        filters: {},
        limit: 500,
        asc: true,
        extra: `done_at is null and due_at <= '${until.toISOString()}'::timestamptz`,
      });
      return {
        as_of: isoTime(now),
        until: isoTime(until),
        tasks: rows.slice(0, 500).map((r) => ({ ...views.task(r), overdue: r.due_at.getTime() < now.getTime() })),
      };
    },

    // Retention
    async retentionPreview(ctx: RequestContext) {
      const settings = await settingsRow(db, ctx.orgId);
      const cutoff = new Date(clock.now().getTime() - settings.retention_days * DAY_MS);
      const rows = await store.stale(db, ctx.orgId, cutoff, WON);
      return {
        as_of: isoTime(clock.now()),
        retention_days: settings.retention_days,
        cutoff: isoTime(cutoff),
        contacts: rows.map((r) => ({
          contact_id: r.id,
          account_id: r.account_id,
          last_engaged_at: isoTimeOrNull(r.last_engaged_at),
          created_at: isoTime(r.created_at),
        })),
      };
    },
    async retentionRun(ctx: RequestContext) {
      return db.tx(async (q) => {
        const settings = await settingsRow(q, ctx.orgId);
        const cutoff = new Date(clock.now().getTime() - settings.retention_days * DAY_MS);
        const rows = await store.stale(q, ctx.orgId, cutoff, WON);
        const erased = [];
        for (const r of rows) erased.push(await eraseIn(q, ctx, ctx.orgId, r, 'retention'));
        await audit.record(q, ctx, {
          action: 'crm.retention.run',
          details: { retention_days: settings.retention_days, cutoff: isoTime(cutoff), erased: erased.map((e) => e.contact_id) },
        });
        return { as_of: isoTime(clock.now()), retention_days: settings.retention_days, cutoff: isoTime(cutoff), erased };
      });
    },
    /** A public lead: account, contact and a call-back task in one transaction (intake.ts). */
    async intake(orgId: string, lead: { company: string; notes: string; name: string; email: string; phone?: string; due: Date; reference: string }) {
      return db.tx(async (q) => {
        const now = clock.now();
        const sys = { orgId, system: true as const };
        const account = await store.insert(q, 'account', orgId, {
          id: `acc_${randomUUID()}`,
          name: lead.company,
          domain: null,
          kind: 'prospect',
          notes: lead.notes,
          created_at: now,
          updated_at: now,
        });
        const contact = await this.createContact(sys, { name: lead.name, email: lead.email, phone: lead.phone, account_id: account.id }, q);
        await this.createTask(
          sys,
          { title: `Call back about capacity study request ${lead.reference}`, due_at: lead.due.toISOString(), account_id: account.id, contact_id: contact.id },
          q,
        );
        await audit.record(
          q,
          { orgId, actorType: 'anonymous', actorId: null },
          { action: 'crm.intake.lead', targetType: 'crm_account', targetId: account.id, details: { reference: lead.reference } },
        );
        return { account_id: account.id, contact_id: contact.id };
      });
    },
    db,
  };

  function moveView(m: Row) {
    return { from: m.from_stage, to: m.to_stage, reason: m.reason, moved_by: m.moved_by, moved_at: isoTime(m.moved_at) };
  }
}

export type Crm = ReturnType<typeof createCrm>;
