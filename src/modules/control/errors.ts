// The control module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const controlErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  noModel: () => new AppError(404, 'No device model for this site; set a scenario first', { code: 'no_device_model' }),
  deviceNotFound: () => new AppError(404, 'Device not found', { code: 'device_not_found' }),
  overrideNotFound: () => new AppError(404, 'Override not found', { code: 'override_not_found' }),
  decisionNotFound: () => new AppError(404, 'Decision not found', { code: 'decision_not_found' }),
  demoOnly: () => new AppError(403, 'Demo realm only', { code: 'demo_realm_only' }),
  overrideActive: () => new AppError(409, 'Override active', { code: 'override_active' }),
  overrideNotActive: (status: string) => new AppError(409, `Override not active: ${status}`, { code: 'override_not_active' }),
  notConfigured: () => new AppError(409, 'Export limitation not configured for this site', { code: 'export_limit_not_configured' }),
  noAgreement: () => new AppError(409, 'No grid connection agreement for this site', { code: 'no_connection_agreement' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const CONTROL_ERROR_DOCS = [
  { code: 'site_not_found', status: 404, description: 'The site is not known: no registered asset, no device model and no control configuration.' },
  { code: 'no_device_model', status: 404, description: 'Demo realm: the site has no synthetic device model yet; POST its scenario first.' },
  { code: 'device_not_found', status: 404, description: 'No synthetic device with this id in the organisation.' },
  { code: 'override_not_found', status: 404, description: 'No override with this id in the organisation.' },
  { code: 'decision_not_found', status: 404, description: 'No decision with this id in the organisation.' },
  {
    code: 'override_active',
    status: 409,
    description: 'An automatic setpoint (export limitation, optimiser) was refused: an active override holds the site or device.',
  },
  { code: 'override_not_active', status: 409, description: 'Revoke: the override was already revoked or has expired.' },
  { code: 'export_limit_not_configured', status: 409, description: 'Export limitation run: the site has no export limit in its control configuration.' },
  {
    code: 'no_connection_agreement',
    status: 409,
    description: 'Grid: the site has no connection agreement in its control configuration, so there are no guardrails.',
  },
] as const;
