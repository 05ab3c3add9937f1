// The energy module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const energyErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  periodNotFound: () => new AppError(404, 'Not Found'),
  query: (name: string, msg: string, input: unknown) => errors.validation([fieldError(['query', name], msg, input)]),
  path: (name: string, msg: string, input: unknown) => errors.validation([fieldError(['path', name], msg, input)]),
  body: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
  noSettings: () => new AppError(409, 'Site settings missing: set them with PUT /api/hardware/ems/sites/{site_id}/settings', { code: 'settings_missing' }),
  noPvSettings: () => new AppError(409, 'PV settings missing: set pv_kwp and expected_yield_kwh_per_kwp first', { code: 'pv_settings_missing' }),
  noClearDays: () => new AppError(409, 'No clear-sky measured days in the window to calibrate against', { code: 'no_calibration_days' }),
  noOperatingHours: () => new AppError(409, 'Operating hours missing: set operating_hours in the site settings', { code: 'operating_hours_missing' }),
  noContract: () => new AppError(404, 'PPA contract not found', { code: 'ppa_contract_not_found' }),
};

export const ENERGY_ERROR_DOCS = [
  {
    code: 'site_not_found',
    status: 404,
    description: "No asset of the organisation is registered at this site id (another organisation's site answers the same).",
  },
  { code: 'settings_missing', status: 409, description: 'The figure needs EMS site settings (agreed capacity, tariff, PPA contracts) that are not set.' },
  {
    code: 'pv_settings_missing',
    status: 409,
    description: 'Underperformance and calibration need pv_kwp and expected_yield_kwh_per_kwp in the site settings.',
  },
  { code: 'no_calibration_days', status: 409, description: 'PV calibration found no complete, measured, clear-sky day in the window.' },
  { code: 'operating_hours_missing', status: 409, description: 'Out-of-hours consumption needs operating_hours in the site settings.' },
  { code: 'ppa_contract_not_found', status: 404, description: 'The PPA statement names a contract the site does not have.' },
] as const;
