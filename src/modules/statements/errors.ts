// The statements module's errors, named once.
import { errors, fieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors({
  siteNotFound: { status: 404, detail: 'Site not found', code: 'site_not_found' },
  baselineNotProposed: {
    status: 409,
    detail: (status: string) => `Baseline is ${status}: only a proposed baseline can be agreed or withdrawn`,
    code: 'baseline_not_proposed',
    doc: 'The baseline was already agreed (frozen) or withdrawn.',
  },
  selfAgreement: {
    status: 403,
    detail: 'A baseline must be agreed by someone other than its proposer',
    code: 'baseline_self_agreement',
    doc: 'The caller proposed the baseline: another person of the organisation agrees it (decision 0301).',
  },
  baselineNotAgreed: {
    status: 409,
    detail: (status: string) => `Baseline is ${status}: a statement needs an agreed baseline`,
    code: 'baseline_not_agreed',
    doc: 'A statement was asked for against a baseline that is not agreed.',
  },
  noEnergyData: {
    status: 409,
    detail: (what: string) => `No energy figures for the site in the ${what}`,
    code: 'no_energy_data',
    doc: 'The energy model holds no days for the site in the reference or statement period.',
  },
  signingKeyNotConfigured: { status: 503, detail: 'Signing key not configured', code: 'signing_key_not_configured' },
});

export const statementErrors = {
  ...declared.errors,
  invalid: (loc: string[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const STATEMENT_ERROR_DOCS = declared.docs;
