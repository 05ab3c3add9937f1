// EMS alerts' own errors: named once, thrown by the services, rendered by the platform.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors(
  {
    alertResolved: {
      status: 409,
      detail: 'Alert is already resolved',
      code: 'alert_resolved',
      doc: 'The alert is resolved; acknowledge, assign and resolve act on open alerts only.',
    },
    tooManyRules: {
      status: 409,
      detail: (max: number) => `An organisation may hold at most ${max} routing rules`,
      code: 'routing_rule_limit',
      doc: 'The organisation holds the largest number of routing rules allowed (100).',
    },
  },
  { fieldsIn: 'body' },
);

export const emsErrors = {
  ...declared.errors,
  notMember: () => errors.validation([fieldError(['body', 'user_id'], 'not a member of this organisation', null)]),
};

export const EMS_ERROR_DOCS = declared.docs;
