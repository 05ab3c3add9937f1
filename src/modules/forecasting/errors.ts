// The forecasting module's errors, named once.
import { declareErrors } from '../../platform/error-docs.ts';

export const { errors: forecastErrors, docs: FORECAST_ERROR_DOCS } = declareErrors({
  siteNotFound: {
    status: 404,
    detail: 'Site not found',
    code: 'site_not_found',
    doc: 'Forecasting: the site is not known (no registered asset and no reporting device names it).',
  },
  backtestNotFound: {
    status: 404,
    detail: 'Backtest not found',
    code: 'backtest_not_found',
    doc: 'Forecasting: no backtest job with this id for this site in your organisation.',
  },
});
