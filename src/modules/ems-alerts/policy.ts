// The EMS alert policy: severity thresholds on impact, the evaluation window, each source's
// settings, and the prices impacts are valued at (organisation-wide, with per-site overrides).
// No stored policy = these defaults (decision 0131).
import { penceOf } from '../../kit/decimal.ts';

export interface SitePolicy {
  import_p_per_kwh?: string;
  peak_import_p_per_kwh?: string;
  export_p_per_kwh?: string;
  /** The site's export limit at the meter (kW); export_over_limit is checked only where one is known. */
  export_limit_kw?: number;
}

export interface AlertPolicy {
  severity: { warning_gbp_per_day: string; critical_gbp_per_day: string };
  window_hours: number;
  silence_after_minutes: number;
  pv: { expected_kwh_per_kwp_day: string; underperformance_pct: number };
  battery: { min_soc_swing_pct: number; charge_held_soc_pct: number };
  peak_band: { start: string; end: string };
  prices: { import_p_per_kwh: string; peak_import_p_per_kwh: string; export_p_per_kwh: string };
  sites: Record<string, SitePolicy>;
}

export const DEFAULT_POLICY: AlertPolicy = {
  severity: { warning_gbp_per_day: '5.00', critical_gbp_per_day: '25.00' },
  window_hours: 24,
  silence_after_minutes: 60,
  pv: { expected_kwh_per_kwp_day: '2.5', underperformance_pct: 20 },
  battery: { min_soc_swing_pct: 10, charge_held_soc_pct: 50 },
  peak_band: { start: '16:00', end: '19:00' },
  prices: { import_p_per_kwh: '24.50', peak_import_p_per_kwh: '35.00', export_p_per_kwh: '15.00' },
  sites: {},
};

/** The stored policy over the defaults (members added later take their defaults). */
export function effectivePolicy(stored: Partial<AlertPolicy> | null): AlertPolicy {
  const d = structuredClone(DEFAULT_POLICY);
  if (!stored) return d;
  return {
    severity: { ...d.severity, ...stored.severity },
    window_hours: stored.window_hours ?? d.window_hours,
    silence_after_minutes: stored.silence_after_minutes ?? d.silence_after_minutes,
    pv: { ...d.pv, ...stored.pv },
    battery: { ...d.battery, ...stored.battery },
    peak_band: { ...d.peak_band, ...stored.peak_band },
    prices: { ...d.prices, ...stored.prices },
    sites: { ...(stored.sites ?? {}) },
  };
}

export type Severity = 'info' | 'warning' | 'critical';

/** Severity from impact: at or above the critical threshold, critical; at or above warning, warning; else info. */
export function severityOf(impactPence: bigint, p: AlertPolicy): Severity {
  if (impactPence >= penceOf(p.severity.critical_gbp_per_day)) return 'critical';
  if (impactPence >= penceOf(p.severity.warning_gbp_per_day)) return 'warning';
  return 'info';
}

/** The prices of one site: its overrides over the organisation's. */
export function sitePrices(p: AlertPolicy, siteId: string) {
  const s = p.sites[siteId] ?? {};
  return {
    import_p_per_kwh: s.import_p_per_kwh ?? p.prices.import_p_per_kwh,
    peak_import_p_per_kwh: s.peak_import_p_per_kwh ?? p.prices.peak_import_p_per_kwh,
    export_p_per_kwh: s.export_p_per_kwh ?? p.prices.export_p_per_kwh,
  };
}
