// The forecasting module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const forecastErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const FORECAST_ERROR_DOCS = [
  { code: 'site_not_found', status: 404, description: 'Forecasting: the site is not known (no registered asset and no reporting device names it).' },
] as const;
