// CRM's own errors: named once, thrown by the service, rendered by the platform.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const crmErrors = {
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
  notFound: (what: string) => new AppError(404, `${what} not found`, { code: 'not_found' }),
  stageClosed: (stage: string) => new AppError(409, `Deal is ${stage}; a closed deal cannot change stage`, { code: 'deal_closed' }),
  sameStage: (stage: string) => new AppError(409, `Deal is already in stage ${stage}`, { code: 'same_stage' }),
  stageInUse: (stages: string[]) =>
    new AppError(409, `Deals are still in stage(s) ${stages.join(', ')}; move them before removing the stage`, { code: 'stage_in_use' }),
  accountInUse: (contacts: number, deals: number) =>
    new AppError(409, `Account has ${contacts} contact(s) and ${deals} deal(s); delete or move them first`, { code: 'account_in_use' }),
  erased: () => new AppError(409, 'Contact is erased', { code: 'contact_erased' }),
  suppressed: () => new AppError(409, 'Contact has opted out of outreach; nothing can be drafted', { code: 'contact_suppressed' }),
  noEmail: () => new AppError(409, 'Contact has no email address', { code: 'contact_no_email' }),
  intakeUnconfigured: () =>
    new AppError(503, 'Lead intake is not configured: the deployment names no organisation for leads (CRM_INTAKE_ORG_ID)', { code: 'intake_unconfigured' }),
};

export const CRM_ERROR_DOCS = [
  { code: 'deal_closed', status: 409, description: 'The deal is won or lost: closed stages are final.' },
  { code: 'same_stage', status: 409, description: 'The deal is already in the stage asked for.' },
  { code: 'stage_in_use', status: 409, description: 'Settings would remove a stage deals are still in.' },
  { code: 'account_in_use', status: 409, description: 'An account with contacts or deals cannot be deleted.' },
  { code: 'contact_erased', status: 409, description: 'The contact was erased: nothing personal is left to act on.' },
  { code: 'contact_suppressed', status: 409, description: 'The contact opted out (or the address is suppressed): no outreach is drafted.' },
  { code: 'contact_no_email', status: 409, description: 'The contact has no email address to draft to.' },
  { code: 'intake_unconfigured', status: 503, description: 'The deployment names no organisation for public leads.' },
] as const;
