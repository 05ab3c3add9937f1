// EMS alerts' own errors: named once, thrown by the services, rendered by the platform.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const emsErrors = {
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
  alertResolved: () => new AppError(409, 'Alert is already resolved', { code: 'alert_resolved' }),
  tooManyRules: (max: number) => new AppError(409, `An organisation may hold at most ${max} routing rules`, { code: 'routing_rule_limit' }),
  notMember: () => errors.validation([fieldError(['body', 'user_id'], 'not a member of this organisation', null)]),
};

export const EMS_ERROR_DOCS = [
  { code: 'alert_resolved', status: 409, description: 'The alert is resolved; acknowledge, assign and resolve act on open alerts only.' },
  { code: 'routing_rule_limit', status: 409, description: 'The organisation holds the largest number of routing rules allowed (100).' },
] as const;
