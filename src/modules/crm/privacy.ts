// The duties personal data brings: opt-out (the person stays suppressed), erasure of everything
// the person ever held (decision 0295), outreach drafts that respect both, and the retention
// period that erases contacts of prospects gone quiet.
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import type { AuditLog } from '../audit/index.ts';
import { crmErrors } from './errors.ts';
import { identityMatcher, suppressionKeys } from './identity.ts';
import { auditActor, type Caller, must, views } from './records.ts';
import { type CrmSettings, WON } from './settings.ts';
import { type ContactRow, crmStore } from './store.ts';

const DAY_MS = 86_400_000;

export function createPrivacy(deps: { db: Db; clock: Clock; audit: AuditLog; settings: CrmSettings }) {
  const { db, clock, audit, settings } = deps;

  /**
   * Erases one contact in the caller's transaction; answers what was erased. Matches every name,
   * address and number the person ever held (decision 0295): the current ones, the earlier ones
   * kept in crm_contact_identities, and the address the audit log recorded at creation (contacts
   * changed before that table existed).
   */
  async function eraseIn(q: Queryable, ctx: Caller, orgId: string, c: ContactRow, reason: string) {
    const s = await settings.row(q, orgId);
    const now = clock.now();
    const held = { names: [] as string[], emails: [] as string[], phones: [] as string[] };
    const add = (kind: string, v: unknown) => {
      if (typeof v !== 'string' || !v.trim()) return;
      if (kind === 'name') held.names.push(v);
      else if (kind === 'email') held.emails.push(v);
      else if (kind === 'phone') held.phones.push(v);
    };
    for (const kind of ['name', 'email', 'phone'] as const) add(kind, c[kind]);
    for (const r of await crmStore.identities(q, orgId, c.id)) add(r.kind, r.value);
    for (const d of await audit.detailsAbout(q, orgId, 'crm_contact', c.id, ['crm.contact.create'])) add('email', d.email);
    for (const h of suppressionKeys(s.salt, held)) await crmStore.addSuppression(q, orgId, h, 'erased', now);
    const fields = (['name', 'email', 'phone', 'job_title'] as const).filter((f) => c[f] !== null);
    const cleared = await crmStore.clearActivityBodies(q, orgId, c.id);
    await crmStore.update(q, 'contact', orgId, c.id, {
      name: null,
      email: null,
      phone: null,
      job_title: null,
      erased_at: now,
      opted_out_at: c.opted_out_at ?? now,
      updated_at: now,
    });
    await crmStore.removeIdentities(q, orgId, c.id);
    const matcher = identityMatcher(held);
    const replaced = matcher.empty ? 0 : await crmStore.redactText(q, orgId, matcher.anchors, matcher.redact);
    const auditEntries = matcher.empty ? 0 : await audit.redact(q, orgId, matcher);
    await audit.record(q, auditActor(ctx), { action: 'crm.contact.erase', targetType: 'crm_contact', targetId: c.id, details: { reason, fields } });
    return {
      contact_id: c.id,
      erased_at: isoTime(now),
      erased: { contact_fields: fields, activity_bodies: cleared, text_mentions: replaced, audit_entries: auditEntries },
      suppression: 'Email address and phone number kept only as salted hashes, so the person stays suppressed',
    };
  }

  return {
    async optOut(ctx: RequestContext, id: string) {
      return db.tx(async (q) => {
        const c = await must(q, 'contact', ctx.orgId, id, true);
        if (c.erased_at) return views.contact(c);
        const s = await settings.row(q, ctx.orgId);
        const now = clock.now();
        for (const h of suppressionKeys(s.salt, c)) await crmStore.addSuppression(q, ctx.orgId, h, 'opt_out', now);
        if (c.opted_out_at) return views.contact(c);
        const row = await crmStore.update(q, 'contact', ctx.orgId, id, { opted_out_at: now, updated_at: now });
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
      const s = await settings.row(db, ctx.orgId);
      if (c.opted_out_at || (await crmStore.suppressed(db, ctx.orgId, suppressionKeys(s.salt, c)))) throw crmErrors.suppressed();
      if (!c.email) throw crmErrors.noEmail();
      const templates = s.templates;
      const tpl = templates.find((t) => t.name === body.template);
      if (!tpl)
        throw crmErrors.field(
          ['template'],
          `No template ${body.template}; the settings name: ${templates.map((t) => t.name).join(', ') || 'none'}`,
          body.template,
        );
      const deal = body.deal_id ? await crmStore.get(db, 'deal', ctx.orgId, body.deal_id) : null;
      if (body.deal_id && !deal) throw crmErrors.field(['deal_id'], `No deal ${body.deal_id} in this organisation`, body.deal_id);
      const account = c.account_id ? await crmStore.get(db, 'account', ctx.orgId, c.account_id) : null;
      const values: Record<string, string> = {
        name: c.name ?? '',
        first_name: String(c.name ?? '').split(/\s+/)[0] ?? '',
        account: account?.name ?? '',
        deal: deal?.title ?? '',
      };
      const fill = (t: string) => t.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
      return { contact_id: c.id, template: tpl.name, to: c.email, subject: fill(tpl.subject), body: fill(tpl.body), sent: false };
    },

    // Retention
    async retentionPreview(ctx: RequestContext) {
      const s = await settings.row(db, ctx.orgId);
      const cutoff = new Date(clock.now().getTime() - s.retention_days * DAY_MS);
      const rows = await crmStore.stale(db, ctx.orgId, cutoff, WON);
      return {
        as_of: isoTime(clock.now()),
        retention_days: s.retention_days,
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
        const s = await settings.row(q, ctx.orgId);
        const cutoff = new Date(clock.now().getTime() - s.retention_days * DAY_MS);
        const rows = await crmStore.stale(q, ctx.orgId, cutoff, WON);
        const erased = [];
        for (const r of rows) erased.push(await eraseIn(q, ctx, ctx.orgId, r, 'retention'));
        await audit.record(q, ctx, {
          action: 'crm.retention.run',
          details: { retention_days: s.retention_days, cutoff: isoTime(cutoff), erased: erased.map((e) => e.contact_id) },
        });
        return { as_of: isoTime(clock.now()), retention_days: s.retention_days, cutoff: isoTime(cutoff), erased };
      });
    },
  };
}

export type Privacy = ReturnType<typeof createPrivacy>;
