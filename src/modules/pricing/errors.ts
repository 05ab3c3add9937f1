// The pricing module's errors, named once.
import { errors, type FieldError } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';

const declared = declareErrors(
  {
    rateClash: {
      status: 409,
      detail: (detail: string) => detail,
      code: 'rate_clash',
      doc: 'A charge-library rate whose scope (distributor, line-loss class, supply type, band) and period of validity overlap a rate already in the library (or a published one) for the same component.',
    },
    bandsClash: {
      status: 409,
      detail: (detail: string) => detail,
      code: 'time_bands_clash',
      doc: 'A time-band schedule for a distributor whose period of validity overlaps one already in the library.',
    },
    mpanExists: { status: 409, detail: 'MPAN already registered', code: 'mpan_exists', doc: 'The organisation has registered this MPAN already.' },
    mpanUnknown: {
      status: 404,
      detail: 'MPAN not registered',
      code: 'mpan_not_registered',
      doc: 'Pricing, stack or cost-plus at an MPAN the organisation has not registered.',
    },
    tariffUnknown: { status: 404, detail: 'Not Found', code: 'not_found' },
    versionOverlap: {
      status: 409,
      detail: (detail: string) => detail,
      code: 'version_overlap',
      doc: 'A new retail tariff version whose effective date does not fall after every stored version (versions are append only).',
    },
  },
  { fieldsIn: 'body' },
);

export const pricingErrors = {
  ...declared.errors,
  fields: (list: FieldError[]) => errors.validation(list),
};

export const PRICING_ERROR_DOCS = declared.docs;
