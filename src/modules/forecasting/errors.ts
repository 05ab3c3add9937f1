// The forecasting module's errors, named once.
import { AppError, errors, fieldError } from '../../platform/errors.ts';

export const forecastErrors = {
  siteNotFound: () => new AppError(404, 'Site not found', { code: 'site_not_found' }),
  backtestNotFound: () => new AppError(404, 'Backtest not found', { code: 'backtest_not_found' }),
  field: (loc: (string | number)[], msg: string, input: unknown) => errors.validation([fieldError(loc, msg, input)]),
};

export const FORECAST_ERROR_DOCS = [
  { code: 'site_not_found', status: 404, description: 'Forecasting: the site is not known (no registered asset and no reporting device names it).' },
  { code: 'backtest_not_found', status: 404, description: 'Forecasting: no backtest job with this id for this site in your organisation.' },
] as const;
