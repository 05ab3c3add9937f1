// The pricing module's errors, named once.
import { AppError, errors, fieldError, type FieldError } from '../../platform/errors.ts';

export const pricingErrors = {
  rateClash: (detail: string) => new AppError(409, detail, { code: 'rate_clash' }),
  bandsClash: (detail: string) => new AppError(409, detail, { code: 'time_bands_clash' }),
  mpanExists: () => new AppError(409, 'MPAN already registered', { code: 'mpan_exists' }),
  mpanUnknown: () => new AppError(404, 'MPAN not registered', { code: 'mpan_not_registered' }),
  tariffUnknown: () => new AppError(404, 'Not Found', { code: 'not_found' }),
  versionOverlap: (detail: string) => new AppError(409, detail, { code: 'version_overlap' }),
  fields: (list: FieldError[]) => errors.validation(list),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(['body', ...loc], msg, input)]),
};

export const PRICING_ERROR_DOCS = [
  {
    code: 'rate_clash',
    status: 409,
    description:
      'A charge-library rate whose scope (distributor, line-loss class, supply type, band) and period of validity overlap a rate already in the library (or a published one) for the same component.',
  },
  {
    code: 'time_bands_clash',
    status: 409,
    description: 'A time-band schedule for a distributor whose period of validity overlaps one already in the library.',
  },
  { code: 'mpan_exists', status: 409, description: 'The organisation has registered this MPAN already.' },
  { code: 'mpan_not_registered', status: 404, description: 'Pricing, stack or cost-plus at an MPAN the organisation has not registered.' },
  {
    code: 'version_overlap',
    status: 409,
    description: 'A new retail tariff version whose effective date does not fall after every stored version (versions are append only).',
  },
] as const;
