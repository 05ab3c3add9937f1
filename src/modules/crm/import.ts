// Import of a sales team's CSV tracker (decision 0223): each line maps to an account, optionally a
// contact and a deal; rows match existing records by key, so re-importing a file adds nothing.
import { randomUUID } from 'node:crypto';
import { csvRecords } from '../../kit/csv.ts';
import type { Db, Queryable } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { RequestContext } from '../../platform/operation.ts';
import type { AuditLog } from '../audit/index.ts';
import { isCalendarDay } from '../../kit/uk-time.ts';
import { crmErrors } from './errors.ts';
import type { Contacts } from './contacts.ts';
import type { CrmSettings } from './settings.ts';
import { crmStore } from './store.ts';
import { insertDeal } from './records.ts';

export const TRACKER_COLUMNS = [
  'company',
  'domain',
  'contact_name',
  'email',
  'phone',
  'job_title',
  'deal_title',
  'deal_value',
  'currency',
  'stage',
  'expected_close',
] as const;
type Column = (typeof TRACKER_COLUMNS)[number];
type Line = Partial<Record<Column, string>>;

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()-]{6,24}$/;
const VALUE = /^(0|[1-9][0-9]{0,13})(\.[0-9]{1,2})?$/;
const MAX_ROWS = 5000;

export interface LineError {
  line: number;
  column: string | null;
  message: string;
}

export function createTrackerImport(deps: { db: Db; clock: Clock; audit: AuditLog; settings: CrmSettings; contacts: Contacts }) {
  const { db, clock, audit, settings, contacts } = deps;

  function check(row: Line, line: number, stages: string[]): LineError[] {
    const errs: LineError[] = [];
    const e = (column: Column, message: string) => errs.push({ line, column, message });
    if (!row.company) e('company', 'company is required');
    else if (row.company.length > 200) e('company', 'at most 200 characters');
    if (row.domain && !/^[a-z0-9.-]{3,253}$/i.test(row.domain)) e('domain', 'not a web domain');
    if (row.email && !EMAIL.test(row.email)) e('email', 'not an email address');
    if (row.phone && !PHONE.test(row.phone)) e('phone', 'not a phone number');
    if ((row.email || row.phone || row.job_title) && !row.contact_name) e('contact_name', 'a contact needs a name');
    if (row.contact_name && row.contact_name.length > 200) e('contact_name', 'at most 200 characters');
    const deal = row.deal_title || row.deal_value || row.stage || row.expected_close;
    if (deal) {
      if (!row.deal_title) e('deal_title', 'a deal needs a title');
      if (!row.deal_value || !VALUE.test(row.deal_value.replace(/,/g, '')))
        e('deal_value', 'a deal needs a value: a decimal with at most 2 places, e.g. 12500.00');
      if (row.stage && !stages.includes(row.stage.toLowerCase())) e('stage', `unknown stage; the pipeline has: ${stages.join(', ')}`);
      if (row.expected_close && !isCalendarDay(row.expected_close)) e('expected_close', 'a date, YYYY-MM-DD');
      if (row.currency && !/^[A-Z]{3}$/.test(row.currency)) e('currency', 'ISO 4217, e.g. GBP');
    }
    return errs;
  }

  return async function importTracker(ctx: RequestContext, body: { csv: string; dry_run?: boolean }) {
    let read: Awaited<ReturnType<typeof csvRecords>>;
    try {
      // The header, at most MAX_ROWS rows and one more to tell; the first row of the wrong width ends it.
      read = await csvRecords(body.csv, { maxRecords: MAX_ROWS + 2, maxWrongWidth: 1 });
    } catch (err) {
      const e = err as { message?: string; lines?: number };
      throw crmErrors.field(['csv'], `Line ${e.lines ?? '?'}: ${String(e.message ?? 'not CSV')}`, null);
    }
    const [head = [], ...rest] = read.records;
    const columns = head.map((h) => h.toLowerCase().replace(/[\s-]+/g, '_'));
    const wrong = rest.findIndex((r) => r.length !== columns.length);
    if (wrong >= 0) throw crmErrors.field(['csv'], `Line ${read.lines[wrong + 1]}: expected ${columns.length} columns, found ${rest[wrong]!.length}`, null);
    // Each row by its columns, with the line of the file it ends on.
    const records = rest.map((fields, i) => ({ row: Object.fromEntries(columns.map((c, j) => [c, fields[j]!])) as Line, line: read.lines[i + 1]! }));
    if (!records.length) throw crmErrors.field(['csv'], 'The file has a header but no rows', null);
    const header = [...new Set(columns)];
    const unknown = header.filter((h) => !(TRACKER_COLUMNS as readonly string[]).includes(h));
    if (unknown.length)
      throw crmErrors.field(['csv'], `Line 1: unknown column(s) ${unknown.join(', ')}; the tracker columns are ${TRACKER_COLUMNS.join(', ')}`, unknown);
    if (!header.includes('company')) throw crmErrors.field(['csv'], 'Line 1: the column company is required', header);
    if (records.length > MAX_ROWS) throw crmErrors.field(['csv'], `At most ${MAX_ROWS} rows a file`, records.length);

    // Read before the transaction: the embedded store runs one connection (a read outside the
    // transaction would wait for it).
    const stages = (await settings.getSettings(ctx)).stages.map((s) => s.name);
    return db.tx(async (q: Queryable) => {
      const errors: LineError[] = [];
      const created = { accounts: 0, contacts: 0, deals: 0 };
      const matched = { accounts: 0, contacts: 0, deals: 0 };
      let suppressed = 0;
      let imported = 0;
      for (const { row, line } of records) {
        const errs = check(row, line, stages);
        if (errs.length) {
          errors.push(...errs);
          continue;
        }
        imported++;
        if (body.dry_run) continue;
        const now = clock.now();
        let account = await crmStore.findByText(q, 'account', ctx.orgId, 'name', row.company!);
        if (account) matched.accounts++;
        else {
          account = await crmStore.insert(q, 'account', ctx.orgId, {
            id: `acc_${randomUUID()}`,
            name: row.company,
            domain: row.domain || null,
            kind: 'prospect',
            notes: null,
            created_at: now,
            updated_at: now,
          });
          created.accounts++;
        }
        let contactId: string | null = null;
        if (row.contact_name) {
          const existing = row.email
            ? await crmStore.findByText(q, 'contact', ctx.orgId, 'email', row.email)
            : await crmStore.findByText(q, 'contact', ctx.orgId, 'name', row.contact_name, account.id);
          if (existing) {
            matched.contacts++;
            contactId = existing.id;
          } else {
            const c = await contacts.createContact(
              ctx,
              {
                name: row.contact_name,
                email: row.email || undefined,
                phone: row.phone || undefined,
                job_title: row.job_title || undefined,
                account_id: account.id,
              },
              q,
            );
            created.contacts++;
            if (c.opted_out) suppressed++;
            contactId = c.id;
          }
        }
        if (row.deal_title) {
          if (await crmStore.findByText(q, 'deal', ctx.orgId, 'title', row.deal_title, account.id)) matched.deals++;
          else {
            const stage = (row.stage || stages[0]!).toLowerCase();
            await insertDeal(
              q,
              ctx.orgId,
              {
                id: `deal_${randomUUID()}`,
                account_id: account.id,
                contact_id: contactId,
                title: row.deal_title,
                value: row.deal_value!.replace(/,/g, ''),
                currency: row.currency || 'GBP',
                stage,
                expected_close: row.expected_close || null,
                created_at: now,
                updated_at: now,
              },
              { reason: 'imported', movedBy: ctx.actor.kind === 'user' ? ctx.actor.userId : null },
            );
            created.deals++;
          }
        }
      }
      if (!body.dry_run)
        await audit.record(q, ctx, { action: 'crm.import.tracker', details: { rows: records.length, imported, created, matched, errors: errors.length } });
      return { rows: records.length, imported, dry_run: body.dry_run ?? false, created, matched, suppressed_contacts: suppressed, errors };
    });
  };
}

export type TrackerImport = ReturnType<typeof createTrackerImport>;
