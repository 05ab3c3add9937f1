// The optimisation module's errors, named once.
import { declareErrors } from '../../platform/error-docs.ts';

export const { errors: optErrors, docs: OPT_ERROR_DOCS } = declareErrors({
  siteNotFound: { status: 404, detail: 'Site not found', code: 'site_not_found', doc: 'Optimisation: the site is not known (no registered asset names it).' },
  runNotFound: { status: 404, detail: 'Run not found', code: 'run_not_found', doc: 'No run with this id for this site in the organisation.' },
  deviceNotFound: { status: 404, detail: 'Device not found', code: 'device_not_found', doc: 'Warranty: no battery with this id is registered at the site.' },
  notConfigured: {
    status: 409,
    detail: 'Import limit not configured for this site',
    code: 'import_limit_not_configured',
    doc: 'Import-limit series or run: the site has no import-limit configuration (PUT it first).',
  },
  // Raised with the platform's errors.demoRealmOnly; documented here for what it means in this module.
  demoOnly: {
    status: 403,
    code: 'demo_realm_only',
    doc: 'Import-limit run with dispatch=true outside the demo realm: nothing is planned, sent or recorded.',
  },
  noPlan: { status: 404, detail: 'No plan yet', code: 'no_plan', doc: 'Awareness: no shadow plan has been computed yet in the organisation.' },
  infeasible: {
    status: 409,
    detail: (why: string) => `No feasible plan: ${why}`,
    code: 'infeasible',
    doc: 'The solver found no plan meeting the constraints (for example initial state of charge outside the bounds).',
  },
});
