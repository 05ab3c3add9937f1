// CRM's own errors: named once, thrown by the service, rendered by the platform.
import { declareErrors } from '../../platform/error-docs.ts';

export const { errors: crmErrors, docs: CRM_ERROR_DOCS } = declareErrors(
  {
    notFound: { status: 404, detail: (what: string) => `${what} not found`, code: 'not_found' },
    stageClosed: {
      status: 409,
      detail: (stage: string) => `Deal is ${stage}; a closed deal cannot change stage`,
      code: 'deal_closed',
      doc: 'The deal is won or lost: closed stages are final.',
    },
    sameStage: {
      status: 409,
      detail: (stage: string) => `Deal is already in stage ${stage}`,
      code: 'same_stage',
      doc: 'The deal is already in the stage asked for.',
    },
    stageInUse: {
      status: 409,
      detail: (stages: string[]) => `Deals are still in stage(s) ${stages.join(', ')}; move them before removing the stage`,
      code: 'stage_in_use',
      doc: 'Settings would remove a stage deals are still in.',
    },
    accountInUse: {
      status: 409,
      detail: (contacts: number, deals: number) => `Account has ${contacts} contact(s) and ${deals} deal(s); delete or move them first`,
      code: 'account_in_use',
      doc: 'An account with contacts or deals cannot be deleted.',
    },
    erased: { status: 409, detail: 'Contact is erased', code: 'contact_erased', doc: 'The contact was erased: nothing personal is left to act on.' },
    suppressed: {
      status: 409,
      detail: 'Contact has opted out of outreach; nothing can be drafted',
      code: 'contact_suppressed',
      doc: 'The contact opted out (or the address is suppressed): no outreach is drafted.',
    },
    noEmail: { status: 409, detail: 'Contact has no email address', code: 'contact_no_email', doc: 'The contact has no email address to draft to.' },
    intakeUnconfigured: {
      status: 503,
      detail: 'Lead intake is not configured: the deployment names no organisation for leads (CRM_INTAKE_ORG_ID)',
      code: 'intake_unconfigured',
      doc: 'The deployment names no organisation for public leads.',
    },
  },
  { fieldsIn: 'body' },
);
