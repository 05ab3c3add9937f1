// The energy module's errors, named once.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors(
  {
    siteNotFound: {
      status: 404,
      detail: 'Site not found',
      code: 'site_not_found',
      doc: "No asset of the organisation is registered at this site id (another organisation's site answers the same).",
    },
    periodNotFound: { status: 404, detail: 'Not Found' },
    noSettings: {
      status: 409,
      detail: 'Site settings missing: set them with PUT /api/hardware/ems/sites/{site_id}/settings',
      code: 'settings_missing',
      doc: 'The figure needs EMS site settings (agreed capacity, tariff, PPA contracts) that are not set.',
    },
    noPvSettings: {
      status: 409,
      detail: 'PV settings missing: set pv_kwp and expected_yield_kwh_per_kwp first',
      code: 'pv_settings_missing',
      doc: 'Underperformance and calibration need pv_kwp and expected_yield_kwh_per_kwp in the site settings.',
    },
    noClearDays: {
      status: 409,
      detail: 'No clear-sky measured days in the window to calibrate against',
      code: 'no_calibration_days',
      doc: 'PV calibration found no complete, measured, clear-sky day in the window.',
    },
    noOperatingHours: {
      status: 409,
      detail: 'Operating hours missing: set operating_hours in the site settings',
      code: 'operating_hours_missing',
      doc: 'Out-of-hours consumption needs operating_hours in the site settings.',
    },
    noContract: {
      status: 404,
      detail: 'PPA contract not found',
      code: 'ppa_contract_not_found',
      doc: 'The PPA statement names a contract the site does not have.',
    },
  },
  { fieldsIn: 'body' },
);

export const energyErrors = {
  ...declared.errors,
  query: (name: string, msg: string, input: unknown) => errors.validation([fieldError(['query', name], msg, input)]),
  path: (name: string, msg: string, input: unknown) => errors.validation([fieldError(['path', name], msg, input)]),
};

export const ENERGY_ERROR_DOCS = declared.docs;
