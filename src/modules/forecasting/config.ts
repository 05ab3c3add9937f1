// The forecasting module's settings (read with the rest at start; docs/configuration.md).
import { configSection, type SettingsOf } from '../../core/config-section.ts';

export const forecastingConfig = configSection('forecasting', (r) => ({
  /** Backtest jobs one organisation may have queued or running (decision 0291). */
  maxQueuedBacktests: r.int('FORECAST_MAX_QUEUED_BACKTESTS', 3, 1, 1000),
}));

export type ForecastingConfig = SettingsOf<typeof forecastingConfig>;
