// CRM operations (endpoints.md 4.8, module `crm`, all awaiting-migration), base /api/notifications/crm.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import { type ResourceHead, resourceOps, bodyTo } from '../../platform/resource.ts';
import { CursorParam, LimitParam, Money, Page, Timestamp } from '../../platform/schema-kit.ts';
import type { Accounts } from './accounts.ts';
import type { Activities } from './activities.ts';
import type { Contacts } from './contacts.ts';
import type { Deals } from './deals.ts';
import type { Forecast } from './forecast.ts';
import { TRACKER_COLUMNS, type TrackerImport } from './import.ts';
import type { Privacy } from './privacy.ts';
import type { CrmSettings } from './settings.ts';
import type { Tasks } from './tasks.ts';
import * as S from './schemas.ts';

const BASE = '/api/notifications/crm';
const tags = ['crm'];
const paging = { limit: Type.Optional(LimitParam({ default: 50, max: 200 })), cursor: Type.Optional(CursorParam) };
const idParam = (name: string) => Type.Object({ [name]: S.Id });
const ACCOUNTS: ResourceHead = { name: 'CrmAccount', path: `${BASE}/accounts`, id: 'account_id', idSchema: S.Id, item: S.Account };
const CONTACTS: ResourceHead = { name: 'CrmContact', path: `${BASE}/contacts`, id: 'contact_id', idSchema: S.Id, item: S.Contact };
const DEALS: ResourceHead = { name: 'CrmDeal', path: `${BASE}/deals`, id: 'deal_id', idSchema: S.Id, item: S.DealWithMoves };
const ACTIVITIES: ResourceHead = {
  name: 'CrmActivity',
  plural: 'CrmActivities',
  path: `${BASE}/activities`,
  id: 'activity_id',
  idSchema: S.Id,
  item: S.Activity,
};
const TASKS: ResourceHead = { name: 'CrmTask', path: `${BASE}/tasks`, id: 'task_id', idSchema: S.Id, item: S.Task };

/** The CRM's services, one a sub-domain (index.ts wires them). */
export interface CrmServices {
  settings: CrmSettings;
  accounts: Accounts;
  contacts: Contacts;
  privacy: Privacy;
  deals: Deals;
  forecast: Forecast;
  activities: Activities;
  tasks: Tasks;
  importTracker: TrackerImport;
}

export function crmOperations(crm: CrmServices) {
  const op = withDefaults({ tags, status: 'awaiting-migration', module: 'crm', access: BEARER.read });
  return [
    op({
      operationId: 'getCrmSettings',
      method: 'GET',
      path: `${BASE}/settings`,
      summary: 'Pipeline stages, retention period and outreach templates',
      description: 'The defaults (updated_at null) until the organisation saves its own.',
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: S.Settings } },
      handler: async ({ ctx }) => crm.settings.getSettings(ctx),
    }),
    op({
      operationId: 'updateCrmSettings',
      method: 'PUT',
      path: `${BASE}/settings`,
      summary: 'Replace the pipeline stages, retention period and outreach templates',
      description: 'Open stages in order with their win probability (won and lost are always there). A stage deals are still in cannot be removed (409).',
      access: BEARER.configure,
      schema: bodyTo(S.SettingsBody, S.Settings),
      handler: async ({ ctx, body }) => crm.settings.putSettings(ctx, body),
    }),
    op({
      operationId: 'getCrmForecast',
      method: 'GET',
      path: `${BASE}/forecast`,
      summary: 'Weighted pipeline by expected close month and stage',
      description:
        'Open deals only; `weighted` is value x stage probability. Deals without an expected close date fall under month `unscheduled`. One row per currency.',
      dataBasis: {
        basis: 'calculated',
        method: 'Weighted value = sum over open deals of value × stage probability ÷ 100, rounded half up to the penny per stage and month; exact decimals.',
      },
      schema: {
        response: {
          200: Type.Object({
            as_of: Timestamp,
            months: Type.Array(
              Type.Object({
                month: Type.String({ description: 'YYYY-MM of expected close, or unscheduled' }),
                currency: Type.String(),
                deals: Type.Integer(),
                value: Money('Sum of deal values'),
                weighted: Money('Probability-weighted value'),
                stages: Type.Array(
                  Type.Object({ stage: S.StageName, probability: Type.Integer(), deals: Type.Integer(), value: Money('Sum'), weighted: Money('Weighted') }),
                ),
              }),
            ),
            totals: Type.Array(Type.Object({ currency: Type.String(), deals: Type.Integer(), value: Money('Sum'), weighted: Money('Weighted') })),
          }),
        },
      },
      handler: async ({ ctx }) => crm.forecast.forecast(ctx),
    }),
    // Accounts
    ...resourceOps(op, ACCOUNTS, {
      list: {
        summary: 'Accounts, newest first',
        description: 'Filter by kind; cursor paging (limit, cursor).',
        query: Type.Object({ kind: Type.Optional(S.AccountKind), ...paging }),
        response: Page('accounts', S.Account),
        handler: (ctx, query) => crm.accounts.listAccounts(ctx, query),
      },
      create: {
        summary: 'Create an account',
        description: 'A new account is a prospect unless kind says otherwise; contacts of prospects fall under retention.',
        access: BEARER.ingest,
        body: S.AccountBody,
        handler: (ctx, body) => crm.accounts.createAccount(ctx, body),
      },
      get: { summary: 'One account', description: "404 for another organisation's account.", handler: (ctx, id) => crm.accounts.getAccount(ctx, id) },
      update: {
        summary: 'Change an account',
        description: 'Only the members given change.',
        access: BEARER.ingest,
        body: S.AccountPatch,
        handler: (ctx, id, body) => crm.accounts.patchAccount(ctx, id, body),
      },
      remove: {
        summary: 'Delete an account without contacts or deals',
        description: '409 while contacts or deals name it.',
        access: BEARER.configure,
        handler: (ctx, id) => crm.accounts.deleteAccount(ctx, id),
      },
    }),
    // Contacts
    ...resourceOps(op, CONTACTS, {
      list: {
        summary: 'Contacts (personal data), newest first',
        description: 'Erased contacts are left out unless include_erased=true (they then show no personal field).',
        query: Type.Object({ account_id: Type.Optional(S.Id), include_erased: Type.Optional(Type.Boolean()), ...paging }),
        response: Page('contacts', S.Contact),
        handler: (ctx, query) => crm.contacts.listContacts(ctx, query),
      },
      create: {
        summary: 'Create a contact',
        description:
          'An email address or phone number on the suppression list makes the contact opted out from the start: nothing re-subscribes a suppressed person.',
        access: BEARER.ingest,
        body: S.ContactBody,
        handler: (ctx, body) => crm.contacts.createContact(ctx, body),
      },
      get: {
        summary: 'One contact',
        description: 'An erased contact shows erased: true and no personal field.',
        handler: (ctx, id) => crm.contacts.getContact(ctx, id),
      },
      update: {
        summary: 'Change a contact',
        description: 'Opt-out cannot be undone here. An erased contact cannot be changed (409).',
        access: BEARER.ingest,
        body: S.ContactPatch,
        handler: (ctx, id, body) => crm.contacts.patchContact(ctx, id, body),
      },
    }),
    op({
      operationId: 'optOutCrmContact',
      method: 'POST',
      path: `${BASE}/contacts/{contact_id}/opt-out`,
      summary: 'Opt a contact out of outreach, at once and for good',
      description: 'Adds the address and number to the suppression list (salted hashes). Idempotent.',
      access: BEARER.ingest,
      schema: { params: idParam('contact_id'), response: { 200: S.Contact } },
      handler: async ({ ctx, params }) => crm.privacy.optOut(ctx, params.contact_id),
    }),
    op({
      operationId: 'eraseCrmContact',
      method: 'POST',
      path: `${BASE}/contacts/{contact_id}/erase`,
      summary: "Erase a person's data everywhere it lives",
      description:
        "Clears the contact's name, email, phone and job title, the notes of activities with them, every mention of the name, address or number in other CRM texts and in the audit log's details; keeps only salted hashes so they stay suppressed. Answers what was erased.",
      access: BEARER.configure,
      schema: { params: idParam('contact_id'), response: { 200: S.Erasure } },
      handler: async ({ ctx, params }) => crm.privacy.erase(ctx, params.contact_id),
    }),
    op({
      operationId: 'draftCrmOutreach',
      method: 'POST',
      path: `${BASE}/contacts/{contact_id}/outreach-draft`,
      summary: 'Draft a message from a template (sends nothing)',
      description: 'Refuses a contact who opted out or whose address is suppressed (409), and an erased one.',
      access: BEARER.ingest,
      schema: {
        params: idParam('contact_id'),
        body: Type.Object({ template: S.StageName, deal_id: Type.Optional(S.Id) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            contact_id: S.Id,
            template: Type.String(),
            to: Type.String(),
            subject: Type.String(),
            body: Type.String(),
            sent: Type.Boolean({ description: 'Always false: drafts are never sent by the platform' }),
          }),
        },
      },
      handler: async ({ ctx, params, body }) => crm.privacy.outreachDraft(ctx, params.contact_id, body),
    }),
    // Deals
    ...resourceOps(op, DEALS, {
      list: {
        summary: 'Deals, newest first',
        description: 'Filter by account or stage; cursor paging.',
        query: Type.Object({ account_id: Type.Optional(S.Id), stage: Type.Optional(S.StageName), ...paging }),
        response: Page('deals', S.Deal),
        handler: (ctx, query) => crm.deals.listDeals(ctx, query),
      },
      create: {
        summary: 'Create a deal',
        description: 'Starts in the first open stage unless `stage` names another open one.',
        access: BEARER.ingest,
        body: S.DealBody,
        handler: (ctx, body) => crm.deals.createDeal(ctx, body),
      },
      get: {
        summary: 'One deal with its stage moves',
        description: 'With every stage move, oldest first.',
        handler: (ctx, id) => crm.deals.getDeal(ctx, id),
      },
      update: {
        summary: 'Change a deal (not its stage: see deals/{deal_id}/stage)',
        description: 'Title, value, contact and expected close; the stage moves only through deals/{deal_id}/stage.',
        access: BEARER.ingest,
        body: S.DealPatch,
        handler: (ctx, id, body) => crm.deals.patchDeal(ctx, id, body),
      },
      remove: {
        summary: 'Delete a deal',
        description: 'Removes the deal and its stage moves.',
        access: BEARER.configure,
        handler: (ctx, id) => crm.deals.deleteDeal(ctx, id),
      },
    }),
    op({
      operationId: 'moveCrmDealStage',
      method: 'POST',
      path: `${BASE}/deals/{deal_id}/stage`,
      summary: 'Move a deal to another stage',
      description: 'Open stages move to any stage; won and lost are final (409). Each move is recorded.',
      access: BEARER.ingest,
      schema: {
        params: idParam('deal_id'),
        body: Type.Object({ stage: S.StageName, reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
        response: { 200: S.DealWithMoves },
      },
      handler: async ({ ctx, params, body }) => crm.deals.moveStage(ctx, params.deal_id, body),
    }),
    // Activities
    ...resourceOps(op, ACTIVITIES, {
      list: {
        summary: 'Activities, newest first',
        description: 'Filter by account, contact, deal or kind; newest occurred_at first; cursor paging.',
        query: Type.Object({
          account_id: Type.Optional(S.Id),
          contact_id: Type.Optional(S.Id),
          deal_id: Type.Optional(S.Id),
          kind: Type.Optional(S.ActivityKind),
          ...paging,
        }),
        response: Page('activities', S.Activity),
        handler: (ctx, query) => crm.activities.listActivities(ctx, query),
      },
      create: {
        summary: 'Record a call, email, meeting or note',
        description: 'Names at least one of account, contact, deal. Counts as engagement of the contact (retention).',
        access: BEARER.ingest,
        body: S.ActivityBody,
        handler: (ctx, body) => crm.activities.createActivity(ctx, body),
      },
      remove: {
        summary: 'Delete an activity',
        description: 'Removes one activity.',
        access: BEARER.ingest,
        handler: (ctx, id) => crm.activities.deleteActivity(ctx, id),
      },
    }),
    // Tasks
    ...resourceOps(op, TASKS, {
      list: {
        summary: 'Tasks, newest first',
        description: 'Filter by account, deal, assignee or done; cursor paging.',
        query: Type.Object({
          account_id: Type.Optional(S.Id),
          deal_id: Type.Optional(S.Id),
          assignee_id: Type.Optional(S.Id),
          done: Type.Optional(Type.Boolean()),
          ...paging,
        }),
        response: Page('tasks', S.Task),
        handler: (ctx, query) => crm.tasks.listTasks(ctx, query),
      },
      create: {
        summary: 'Create a task',
        description: 'A task may name an account, a contact and a deal of the organisation.',
        access: BEARER.ingest,
        body: S.TaskBody,
        handler: (ctx, body) => crm.tasks.createTask(ctx, body),
      },
    }),
    op({
      operationId: 'listCrmTasksDue',
      method: 'GET',
      path: `${BASE}/tasks/due`,
      summary: 'Open tasks due within a window (overdue included), soonest first',
      description: 'Overdue tasks carry overdue: true; done tasks are left out.',
      schema: {
        query: Type.Object({ within_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 24 * 90, description: 'Window from now, hours; default 24' })) }),
        response: {
          200: Type.Object({ as_of: Timestamp, until: Timestamp, tasks: Type.Array(Type.Object({ ...S.Task.properties, overdue: Type.Boolean() })) }),
        },
      },
      handler: async ({ ctx, query }) => crm.tasks.dueTasks(ctx, query),
    }),
    // After tasks/due, as the catalogue lists them.
    ...resourceOps(op, TASKS, {
      update: {
        summary: 'Change a task or mark it done',
        description: 'done: true closes the task (done_at kept on a repeat); done: false reopens it.',
        access: BEARER.ingest,
        body: S.TaskPatch,
        handler: (ctx, id, body) => crm.tasks.patchTask(ctx, id, body),
      },
    }),
    op({
      operationId: 'importCrmTracker',
      method: 'POST',
      path: `${BASE}/import/tracker`,
      summary: "Import a sales team's CSV tracker into accounts, contacts and deals",
      description:
        `CSV (RFC 4180) with a header line; columns (any order, case-insensitive): ${TRACKER_COLUMNS.join(', ')}. ` +
        'Rows match existing records (account by name, contact by email else by name within the account, deal by title within the account), so importing the same file again creates nothing. ' +
        'A line with errors is skipped and listed by line number; the others are imported (dry_run checks without writing). A suppressed address comes in opted out.',
      access: BEARER.ingest,
      schema: {
        body: Type.Object(
          {
            csv: Type.String({ minLength: 1, maxLength: 2_000_000, description: 'The tracker file as text' }),
            dry_run: Type.Optional(Type.Boolean({ description: 'Check only; write nothing' })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            rows: Type.Integer(),
            imported: Type.Integer({ description: 'Rows without errors (written unless dry_run)' }),
            dry_run: Type.Boolean(),
            created: Type.Object({ accounts: Type.Integer(), contacts: Type.Integer(), deals: Type.Integer() }),
            matched: Type.Object(
              { accounts: Type.Integer(), contacts: Type.Integer(), deals: Type.Integer() },
              { description: 'Rows that named records already there (left as they are)' },
            ),
            suppressed_contacts: Type.Integer({ description: 'New contacts whose address or number is suppressed: created opted out' }),
            errors: Type.Array(
              Type.Object({
                line: Type.Integer({ description: 'Line in the file, header = 1' }),
                column: Type.Union([Type.String(), Type.Null()]),
                message: Type.String(),
              }),
            ),
          }),
        },
      },
      handler: async ({ ctx, body }) => crm.importTracker(ctx, body),
    }),
    // Retention
    op({
      operationId: 'previewCrmRetention',
      method: 'GET',
      path: `${BASE}/retention/preview`,
      summary: 'Prospects retention/run would erase now',
      description: 'Contacts of prospect accounts (or of none), with no deal won, whose last engagement (else creation) is older than the retention period.',
      schema: {
        response: {
          200: Type.Object({
            as_of: Timestamp,
            retention_days: Type.Integer(),
            cutoff: Timestamp,
            contacts: Type.Array(
              Type.Object({
                contact_id: S.Id,
                account_id: Type.Union([S.Id, Type.Null()]),
                last_engaged_at: Type.Union([Timestamp, Type.Null()]),
                created_at: Timestamp,
              }),
            ),
          }),
        },
      },
      handler: async ({ ctx }) => crm.privacy.retentionPreview(ctx),
    }),
    op({
      operationId: 'runCrmRetention',
      method: 'POST',
      path: `${BASE}/retention/run`,
      summary: 'Erase the prospects past the retention period',
      description: 'Erases each contact the preview lists, in one transaction, and records the run in the audit log.',
      access: BEARER.configure,
      schema: { response: { 200: Type.Object({ as_of: Timestamp, retention_days: Type.Integer(), cutoff: Timestamp, erased: Type.Array(S.Erasure) }) } },
      handler: async ({ ctx }) => crm.privacy.retentionRun(ctx),
    }),
  ];
}
