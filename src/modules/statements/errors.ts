// The statements module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const statementErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  baselineNotProposed: (status: string) =>
    new AppError(409, `Baseline is ${status}: only a proposed baseline can be agreed or withdrawn`, { code: 'baseline_not_proposed' }),
  selfAgreement: () => new AppError(403, 'A baseline must be agreed by someone other than its proposer', { code: 'baseline_self_agreement' }),
  baselineNotAgreed: (status: string) => new AppError(409, `Baseline is ${status}: a statement needs an agreed baseline`, { code: 'baseline_not_agreed' }),
  noEnergyData: (what: string) => new AppError(409, `No energy figures for the site in the ${what}`, { code: 'no_energy_data' }),
  signingKeyNotConfigured: () => new AppError(503, 'Signing key not configured', { code: 'signing_key_not_configured' }),
  invalid: (loc: string[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const STATEMENT_ERROR_DOCS = [
  { code: 'baseline_not_proposed', status: 409, description: 'The baseline was already agreed (frozen) or withdrawn.' },
  {
    code: 'baseline_self_agreement',
    status: 403,
    description: 'The caller proposed the baseline: another person of the organisation agrees it (decision 0301).',
  },
  { code: 'baseline_not_agreed', status: 409, description: 'A statement was asked for against a baseline that is not agreed.' },
  { code: 'no_energy_data', status: 409, description: 'The energy model holds no days for the site in the reference or statement period.' },
];
