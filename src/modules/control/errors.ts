// The control module's errors, named once.
import { declareErrors } from '../../platform/error-docs.ts';

export const { errors: controlErrors, docs: CONTROL_ERROR_DOCS } = declareErrors({
  siteNotFound: {
    status: 404,
    detail: 'Site not found',
    code: 'site_not_found',
    doc: 'The site is not known: no registered asset, no device model and no control configuration.',
  },
  noModel: {
    status: 404,
    detail: 'No device model for this site; set a scenario first',
    code: 'no_device_model',
    doc: 'Demo realm: the site has no synthetic device model yet; POST its scenario first.',
  },
  deviceNotFound: { status: 404, detail: 'Device not found', code: 'device_not_found', doc: 'No synthetic device with this id in the organisation.' },
  overrideNotFound: { status: 404, detail: 'Override not found', code: 'override_not_found', doc: 'No override with this id in the organisation.' },
  decisionNotFound: { status: 404, detail: 'Decision not found', code: 'decision_not_found', doc: 'No decision with this id in the organisation.' },
  overrideActive: {
    status: 409,
    detail: 'Override active',
    code: 'override_active',
    doc: 'An automatic setpoint (export limitation, optimiser) was refused: an active override holds the site or device.',
  },
  overrideNotActive: {
    status: 409,
    detail: (status: string) => `Override not active: ${status}`,
    code: 'override_not_active',
    doc: 'Revoke: the override was already revoked or has expired.',
  },
  notConfigured: {
    status: 409,
    detail: 'Export limitation not configured for this site',
    code: 'export_limit_not_configured',
    doc: 'Export limitation run: the site has no export limit in its control configuration.',
  },
  noAgreement: {
    status: 409,
    detail: 'No grid connection agreement for this site',
    code: 'no_connection_agreement',
    doc: 'Grid: the site has no connection agreement in its control configuration, so there are no guardrails.',
  },
});
