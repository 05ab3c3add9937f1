// Public lead intake (endpoints.md 4.8): a depot capacity study request becomes an account, a
// contact and a task in the one organisation the deployment names (decision 0222).
import { randomUUID } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import { Type } from 'typebox';
import { AppError } from '../../platform/errors.ts';
import { defineOperation } from '../../platform/operation.ts';
import type { LimitClass } from '../../platform/module.ts';
import type { Clock } from '../../platform/clock.ts';
import type { CrmConfig } from './config.ts';
import { crmErrors } from './errors.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Contacts } from './contacts.ts';
import type { Tasks } from './tasks.ts';
import { crmStore } from './store.ts';
import { Email, Phone } from './schemas.ts';

const HOUR = 3_600_000;

export const IntakeBody = Type.Object(
  {
    company: Type.String({ minLength: 1, maxLength: 200, description: 'Organisation asking for the study' }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Who to contact' }),
    email: Email,
    phone: Type.Optional(Phone),
    depot_postcode: Type.String({ pattern: '^[A-Za-z]{1,2}[0-9][A-Za-z0-9]? ?[0-9][A-Za-z]{2}$', description: 'UK postcode of the depot, e.g. LS11 5QN' }),
    vehicles: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'Vehicles based at the depot' })),
    message: Type.Optional(Type.String({ maxLength: 2000 })),
    consent: Type.Literal(true, { description: 'The person agrees to be contacted about the study (required)' }),
    website: Type.Optional(Type.String({ maxLength: 200, description: 'Leave empty: a field people do not see (against bots)' })),
  },
  { additionalProperties: false },
);

/** The intake's limit class: CRM_INTAKE_PER_HOUR requests an hour per source address, counted by the platform. */
export const INTAKE_LIMIT = 'crm-intake';
export const intakeLimitClass = (config: CrmConfig): LimitClass => ({
  policy: 'crm-intake',
  limit: config.intakePerHourPerAddress,
  windowMs: HOUR,
  per: 'address',
});

export interface Lead {
  company: string;
  notes: string;
  name: string;
  email: string;
  phone?: string;
  due: Date;
  reference: string;
}

/** A public lead: account, contact and a call-back task in one transaction, written by the system. */
export function createLeadIntake(deps: { db: Db; clock: Clock; audit: AuditLog; contacts: Contacts; tasks: Tasks }) {
  const { db, clock, audit, contacts, tasks } = deps;
  return async function intake(orgId: string, lead: Lead) {
    return db.tx(async (q) => {
      const now = clock.now();
      const sys = { orgId, system: true as const };
      const account = await crmStore.insert(q, 'account', orgId, {
        id: `acc_${randomUUID()}`,
        name: lead.company,
        domain: null,
        kind: 'prospect',
        notes: lead.notes,
        created_at: now,
        updated_at: now,
      });
      const contact = await contacts.createContact(sys, { name: lead.name, email: lead.email, phone: lead.phone, account_id: account.id }, q);
      await tasks.createTask(
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
  };
}
export type LeadIntake = ReturnType<typeof createLeadIntake>;

export function intakeOperation(intake: LeadIntake, deps: { config: CrmConfig; clock: Clock }) {
  return defineOperation({
    operationId: 'requestCapacityCheck',
    method: 'POST',
    path: '/api/notifications/intake/capacity-check',
    summary: 'Request a depot capacity study (public form)',
    description:
      'Writes a lead (account, contact, call-back task) into the organisation the deployment names (CRM_INTAKE_ORG_ID); the caller names none. ' +
      'Limited per source address (CRM_INTAKE_PER_HOUR, 429); `website` must stay empty; 503 when no organisation is configured.',
    tags: ['crm'],
    status: 'awaiting-migration',
    access: { kind: 'public' },
    rateLimit: INTAKE_LIMIT,
    schema: {
      body: IntakeBody,
      response: {
        202: Type.Object({
          received: Type.Literal(true),
          reference: Type.String({ description: 'Quote it when following up' }),
          detail: Type.String(),
        }),
      },
    },
    handler: async ({ body }) => {
      const orgId = deps.config.intakeOrgId;
      if (!orgId) throw crmErrors.intakeUnconfigured();
      const answer = { received: true as const, reference: `req_${randomUUID()}`, detail: 'Thank you: we will be in touch about your depot capacity study' };
      // A filled honeypot: the same answer, nothing written.
      if (body.website) return answer;
      const now = deps.clock.now();
      const notes = [
        `Capacity study request ${answer.reference}`,
        `Depot postcode: ${body.depot_postcode.toUpperCase()}`,
        body.vehicles ? `Vehicles: ${body.vehicles}` : null,
        body.message ? `Message: ${body.message}` : null,
      ]
        .filter(Boolean)
        .join('\n');
      try {
        await intake(orgId, {
          company: body.company,
          notes,
          name: body.name,
          email: body.email,
          phone: body.phone,
          due: new Date(now.getTime() + 24 * HOUR),
          reference: answer.reference,
        });
      } catch (e) {
        if ((e as { code?: string }).code === '23503')
          throw new AppError(503, `Lead intake is not configured: organisation ${orgId} does not exist`, { code: 'intake_unconfigured' });
        throw e;
      }
      return answer;
    },
  });
}
