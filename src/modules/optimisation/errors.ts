// The optimisation module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const optErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  runNotFound: () => new AppError(404, 'Run not found', { code: 'run_not_found' }),
  deviceNotFound: () => new AppError(404, 'Device not found', { code: 'device_not_found' }),
  notConfigured: () => new AppError(409, 'Import limit not configured for this site', { code: 'import_limit_not_configured' }),
  demoOnly: () => new AppError(403, 'Demo realm only', { code: 'demo_realm_only' }),
  noPlan: () => new AppError(404, 'No plan yet', { code: 'no_plan' }),
  infeasible: (why: string) => new AppError(409, `No feasible plan: ${why}`, { code: 'infeasible' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const OPT_ERROR_DOCS = [
  { code: 'site_not_found', status: 404, description: 'Optimisation: the site is not known (no registered asset names it).' },
  { code: 'run_not_found', status: 404, description: 'No run with this id for this site in the organisation.' },
  { code: 'device_not_found', status: 404, description: 'Warranty: no battery with this id is registered at the site.' },
  { code: 'import_limit_not_configured', status: 409, description: 'Import-limit series or run: the site has no import-limit configuration (PUT it first).' },
  { code: 'demo_realm_only', status: 403, description: 'Import-limit run with dispatch=true outside the demo realm: nothing is planned, sent or recorded.' },
  { code: 'no_plan', status: 404, description: 'Awareness: no shadow plan has been computed yet in the organisation.' },
  {
    code: 'infeasible',
    status: 409,
    description: 'The solver found no plan meeting the constraints (for example initial state of charge outside the bounds).',
  },
] as const;
