// The forecasting module's settings (read with the rest at start; docs/configuration.md).
import type { ConfigSection } from '../../core/config-section.ts';

export interface ForecastingConfig {
  /** Backtest jobs one organisation may have queued or running (decision 0291). */
  maxQueuedBacktests: number;
}

export const forecastingConfig: ConfigSection<ForecastingConfig> = {
  name: 'forecasting',
  read: (r) => ({ maxQueuedBacktests: r.int('FORECAST_MAX_QUEUED_BACKTESTS', 3, 1, 1000) }),
};
