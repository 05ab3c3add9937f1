// The hub module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const hubErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'hub_site_not_found' }),
  siteExists: () => new AppError(409, 'Site already exists', { code: 'hub_site_exists' }),
  chargePointExists: () => new AppError(409, 'Charge point already registered', { code: 'hub_charge_point_exists' }),
  scheduleNotFound: () => new AppError(404, 'Price schedule version not found', { code: 'hub_schedule_not_found' }),
  alreadyPublished: () => new AppError(409, 'Price schedule version already published', { code: 'hub_schedule_published' }),
  noPublishedSchedule: () => new AppError(409, 'No published price schedule for this site', { code: 'hub_no_published_schedule' }),
  noScheduleAtStart: () => new AppError(409, 'No published price schedule was in force when the transaction started', { code: 'hub_no_schedule_at_start' }),
  transactionNotFound: () => new AppError(404, 'Transaction not found', { code: 'hub_transaction_not_found' }),
  noCapacity: () => new AppError(409, "No capacity to share: set the site's capacity_kw or send capacity_kw", { code: 'hub_no_capacity' }),
  demoOnly: () => new AppError(403, 'Demo realm only', { code: 'demo_realm_only' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
  bands: (problems: [number, string][]) => errors.validation(problems.map(([i, msg]) => fieldError(['body', 'bands', i], msg, null))),
};

export const HUB_ERROR_DOCS = [
  { code: 'hub_site_not_found', status: 404, description: 'No hub site with this id in the organisation.' },
  { code: 'hub_site_exists', status: 409, description: 'A hub site with this site_id already exists.' },
  { code: 'hub_charge_point_exists', status: 409, description: 'A charge point with this id is already registered in the organisation.' },
  { code: 'hub_schedule_not_found', status: 404, description: 'The site has no price schedule of this version.' },
  { code: 'hub_schedule_published', status: 409, description: 'The version is already published; published versions are never edited: add a new version.' },
  { code: 'hub_no_published_schedule', status: 409, description: 'Quote: the site has no published price schedule in force.' },
  { code: 'hub_no_schedule_at_start', status: 409, description: 'Cost: no published price schedule was in force when the transaction started.' },
  { code: 'hub_transaction_not_found', status: 404, description: 'No transaction with this id in the organisation.' },
  { code: 'hub_no_capacity', status: 409, description: 'Load sharing: neither the request nor the site states the capacity to share.' },
] as const;
