// The hub module's errors, named once.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors(
  {
    siteNotFound: { status: 404, detail: 'Site not found', code: 'site_not_found', doc: 'No hub site with this id in the organisation.' },
    siteExists: { status: 409, detail: 'Site already exists', code: 'site_exists', doc: 'A hub site with this site_id already exists.' },
    chargePointExists: {
      status: 409,
      detail: 'Charge point already registered',
      code: 'charge_point_exists',
      doc: 'A charge point with this id is already registered in the organisation.',
    },
    scheduleNotFound: {
      status: 404,
      detail: 'Price schedule version not found',
      code: 'schedule_not_found',
      doc: 'The site has no price schedule of this version.',
    },
    alreadyPublished: {
      status: 409,
      detail: 'Price schedule version already published',
      code: 'schedule_published',
      doc: 'The version is already published; published versions are never edited: add a new version.',
    },
    noPublishedSchedule: {
      status: 409,
      detail: 'No published price schedule for this site',
      code: 'no_published_schedule',
      doc: 'Quote: the site has no published price schedule in force.',
    },
    noScheduleAtStart: {
      status: 409,
      detail: 'No published price schedule was in force when the transaction started',
      code: 'no_schedule_at_start',
      doc: 'Cost: no published price schedule was in force when the transaction started.',
    },
    transactionNotFound: {
      status: 404,
      detail: 'Transaction not found',
      code: 'transaction_not_found',
      doc: 'No transaction with this id in the organisation.',
    },
    noCapacity: {
      status: 409,
      detail: "No capacity to share: set the site's capacity_kw or send capacity_kw",
      code: 'no_capacity',
      doc: 'Load sharing: neither the request nor the site states the capacity to share.',
    },
    idTokenExists: {
      status: 409,
      detail: 'Id token already exists',
      code: 'id_token_exists',
      doc: 'An id token with this value (in any letter case) already exists in the organisation.',
    },
    idTokenNotFound: { status: 404, detail: 'Id token not found', code: 'id_token_not_found', doc: 'No id token with this value in the organisation.' },
    chargePointNotFound: {
      status: 404,
      detail: 'Charge point not found',
      code: 'charge_point_not_found',
      doc: 'No charge point with this id in the organisation.',
    },
    chargePointOffline: {
      status: 409,
      detail: 'Charge point not connected',
      code: 'charge_point_offline',
      doc: 'Command: the charge point has no live connection to any instance; the command is stored with status offline and not sent.',
    },
    transactionStopped: {
      status: 409,
      detail: 'Transaction already stopped',
      code: 'transaction_stopped',
      doc: 'Remote stop: the transaction has already stopped.',
    },
    chargerCaNotFound: {
      status: 404,
      detail: 'Charger CA not found',
      code: 'charger_ca_not_found',
      doc: 'The organisation has no charger CA certificate to remove.',
    },
    noChargerCa: {
      status: 409,
      detail: "Security profile 3 needs the organisation's charger CA: upload it first (PUT /charger-ca)",
      code: 'no_charger_ca',
      doc: 'Security profile 3 (client certificates) for a charge point of an organisation that has no charger CA certificate: upload it first.',
    },
    commandNotFound: {
      status: 404,
      detail: 'Command not found',
      code: 'command_not_found',
      doc: 'No command with this id for this charge point in the organisation.',
    },
  },
  { fieldsIn: 'body' },
);

export const hubErrors = {
  ...declared.errors,
  bands: (problems: [number, string][]) => errors.validation(problems.map(([i, msg]) => fieldError(['body', 'bands', i], msg, null))),
};

export const HUB_ERROR_DOCS = declared.docs;
