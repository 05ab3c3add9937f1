// CRM shapes (TypeBox): what the routes accept and answer.
import { Type } from 'typebox';
import { Component, Money, Nullable, Timestamp } from '../../platform/schema-kit.ts';

export const Id = Type.String({ minLength: 1, maxLength: 128 });
const Text = (max: number, description: string) => Type.String({ minLength: 1, maxLength: max, description });
export const Email = Type.String({ format: 'email', maxLength: 254, description: 'Email address (stored lower-cased)' });
export const Phone = Type.String({ pattern: '^\\+?[0-9 ()-]{6,24}$', description: 'Phone number, e.g. +44 20 7946 0000' });
export const DateOnly = Type.String({ format: 'date', description: 'Calendar date, YYYY-MM-DD' });
export const StageName = Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$', description: 'Stage name, lower case' });
export const AccountKind = Type.Union([Type.Literal('prospect'), Type.Literal('customer'), Type.Literal('partner')], {
  description: 'prospect: no contract yet (its contacts fall under retention)',
});
export const ActivityKind = Type.Union([Type.Literal('call'), Type.Literal('email'), Type.Literal('meeting'), Type.Literal('note')]);

export const Template = Type.Object(
  {
    name: StageName,
    subject: Text(200, 'Subject; placeholders {{name}}, {{first_name}}, {{account}}, {{deal}}'),
    body: Text(5000, 'Body; the same placeholders'),
  },
  { additionalProperties: false },
);
export const Settings = Component(
  'CrmSettings',
  Type.Object({
    stages: Type.Array(
      Type.Object({
        name: StageName,
        probability: Type.Integer({ minimum: 0, maximum: 100, description: 'Win probability (percent) the forecast weighs by' }),
        final: Type.Boolean({ description: 'won and lost: closed stages, final' }),
      }),
    ),
    retention_days: Type.Integer({ description: 'Prospects with no engagement for this many days are erased by retention/run' }),
    templates: Type.Array(Template),
    updated_at: Nullable(Timestamp, 'null while the defaults apply'),
  }),
);
export const SettingsBody = Type.Object(
  {
    stages: Type.Array(Type.Object({ name: StageName, probability: Type.Integer({ minimum: 0, maximum: 100 }) }, { additionalProperties: false }), {
      minItems: 1,
      maxItems: 12,
      description: 'Open stages in pipeline order; won and lost are always added',
    }),
    retention_days: Type.Integer({ minimum: 30, maximum: 3650 }),
    templates: Type.Array(Template, { maxItems: 20 }),
  },
  { additionalProperties: false },
);

export const Account = Component(
  'CrmAccount',
  Type.Object({
    id: Id,
    name: Type.String(),
    domain: Nullable(Type.String()),
    kind: AccountKind,
    notes: Nullable(Type.String()),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
const accountFields = {
  name: Text(200, 'Organisation name'),
  domain: Type.Optional(Type.String({ pattern: '^[a-z0-9.-]{3,253}$', description: 'Web domain' })),
  kind: Type.Optional(AccountKind),
  notes: Type.Optional(Type.String({ maxLength: 5000 })),
};
export const AccountBody = Type.Object(accountFields, { additionalProperties: false });
export const AccountPatch = Type.Object(
  { name: Type.Optional(accountFields.name), domain: accountFields.domain, kind: accountFields.kind, notes: accountFields.notes },
  { additionalProperties: false, minProperties: 1 },
);

export const Contact = Component(
  'CrmContact',
  Type.Object({
    id: Id,
    account_id: Nullable(Id),
    name: Nullable(Type.String(), 'null once erased'),
    email: Nullable(Type.String()),
    phone: Nullable(Type.String()),
    job_title: Nullable(Type.String()),
    opted_out: Type.Boolean({ description: 'True once the person opted out or their address is suppressed: no outreach' }),
    opted_out_at: Nullable(Timestamp),
    erased: Type.Boolean(),
    erased_at: Nullable(Timestamp),
    last_engaged_at: Nullable(Timestamp, 'Newest activity with the contact'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const ContactBody = Type.Object(
  {
    name: Text(200, 'Full name'),
    email: Type.Optional(Email),
    phone: Type.Optional(Phone),
    job_title: Type.Optional(Type.String({ maxLength: 200 })),
    account_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export const ContactPatch = Type.Object(
  {
    name: Type.Optional(Text(200, 'Full name')),
    email: Type.Optional(Email),
    phone: Type.Optional(Phone),
    job_title: Type.Optional(Type.String({ maxLength: 200 })),
    account_id: Type.Optional(Id),
  },
  { additionalProperties: false, minProperties: 1 },
);

const Move = Type.Object({
  from: Nullable(StageName, 'null for the opening move'),
  to: StageName,
  reason: Nullable(Type.String()),
  moved_by: Nullable(Type.String()),
  moved_at: Timestamp,
});
export const Deal = Component(
  'CrmDeal',
  Type.Object({
    id: Id,
    account_id: Id,
    contact_id: Nullable(Id),
    title: Type.String(),
    value: Money('Deal value, decimal'),
    currency: Type.String(),
    stage: StageName,
    expected_close: Nullable(DateOnly),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const DealWithMoves = Type.Object({ ...Deal.properties, moves: Type.Array(Move, { description: 'Stage moves, oldest first' }) });
const money = Type.String({ pattern: '^(0|[1-9][0-9]{0,13})(\\.[0-9]{1,2})?$', description: 'Decimal, at most 2 places, e.g. "125000.00"' });
export const DealBody = Type.Object(
  {
    account_id: Id,
    contact_id: Type.Optional(Id),
    title: Text(200, 'What is being sold'),
    value: money,
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217, default GBP' })),
    stage: Type.Optional(StageName),
    expected_close: Type.Optional(DateOnly),
  },
  { additionalProperties: false },
);
export const DealPatch = Type.Object(
  {
    title: Type.Optional(Text(200, 'What is being sold')),
    value: Type.Optional(money),
    contact_id: Type.Optional(Id),
    expected_close: Type.Optional(DateOnly),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Activity = Component(
  'CrmActivity',
  Type.Object({
    id: Id,
    kind: ActivityKind,
    account_id: Nullable(Id),
    contact_id: Nullable(Id),
    deal_id: Nullable(Id),
    subject: Type.String(),
    body: Nullable(Type.String()),
    occurred_at: Timestamp,
    created_at: Timestamp,
  }),
);
export const ActivityBody = Type.Object(
  {
    kind: ActivityKind,
    subject: Text(200, 'One line'),
    body: Type.Optional(Type.String({ maxLength: 10000 })),
    account_id: Type.Optional(Id),
    contact_id: Type.Optional(Id),
    deal_id: Type.Optional(Id),
    occurred_at: Type.Optional(Type.String({ format: 'date-time', description: 'When it happened; default now' })),
  },
  { additionalProperties: false },
);

export const Task = Component(
  'CrmTask',
  Type.Object({
    id: Id,
    title: Type.String(),
    due_at: Timestamp,
    account_id: Nullable(Id),
    contact_id: Nullable(Id),
    deal_id: Nullable(Id),
    assignee_id: Nullable(Type.String()),
    done: Type.Boolean(),
    done_at: Nullable(Timestamp),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const TaskBody = Type.Object(
  {
    title: Text(200, 'What to do'),
    due_at: Type.String({ format: 'date-time' }),
    account_id: Type.Optional(Id),
    contact_id: Type.Optional(Id),
    deal_id: Type.Optional(Id),
    assignee_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export const TaskPatch = Type.Object(
  {
    title: Type.Optional(Text(200, 'What to do')),
    due_at: Type.Optional(Type.String({ format: 'date-time' })),
    assignee_id: Type.Optional(Id),
    done: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Erasure = Type.Object({
  contact_id: Id,
  erased_at: Timestamp,
  erased: Type.Object({
    contact_fields: Type.Array(Type.String(), { description: 'Contact fields cleared' }),
    activity_bodies: Type.Integer({ description: 'Activities with the person whose notes were cleared' }),
    text_mentions: Type.Integer({ description: 'Other CRM texts where the name, address or number was replaced by [erased]' }),
    audit_entries: Type.Integer({ description: 'Audit log entries whose details were redacted' }),
  }),
  suppression: Type.String(),
});
