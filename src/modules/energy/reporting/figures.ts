// The figures of the EMS report, each defined once: its label, unit, formula, the rollup columns and
// settings it is computed from (what `lineage` shows), and how its data basis is judged.
export type FigureKey =
  | 'import_kwh'
  | 'export_kwh'
  | 'generation_kwh'
  | 'consumption_kwh'
  | 'self_consumed_kwh'
  | 'self_consumption_ratio'
  | 'self_sufficiency_ratio'
  | 'data_completeness'
  | 'peak_demand_kw'
  | 'capacity_utilisation'
  | 'import_cost_gbp'
  | 'export_income_gbp'
  | 'pv_expected_kwh'
  | 'pv_performance_ratio'
  | 'out_of_hours_consumption_kwh'
  | 'out_of_hours_share';

export interface FigureDef {
  label: string;
  unit: 'kWh' | 'kW' | 'ratio' | 'GBP';
  formula: string;
  /** Columns of the daily rollup (energy_site_days) the figure sums or reads. */
  dayInputs: string[];
  /** Columns of the half-hour rollup (energy_site_halfhours) behind the daily ones. */
  halfHourInputs: string[];
  /** Site settings (and the PV calibration) the figure uses. */
  settings: string[];
  /** 'energy': measured when every half hour of the window is complete and each of `flows` counter-metered, else calculated. */
  kind: 'energy' | 'derived';
  /** The flows an energy figure sums. */
  flows: string[];
}

export const FIGURES: Record<FigureKey, FigureDef> = {
  import_kwh: {
    label: 'Grid import',
    unit: 'kWh',
    formula: "Σ import over the window's half hours",
    dayInputs: ['import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: [],
    kind: 'energy',
    flows: ['import'],
  },
  export_kwh: {
    label: 'Grid export',
    unit: 'kWh',
    formula: "Σ export over the window's half hours",
    dayInputs: ['export_kwh'],
    halfHourInputs: ['export_kwh'],
    settings: [],
    kind: 'energy',
    flows: ['export'],
  },
  generation_kwh: {
    label: 'On-site generation',
    unit: 'kWh',
    formula: "Σ generation over the window's half hours",
    dayInputs: ['generation_kwh'],
    halfHourInputs: ['generation_kwh'],
    settings: [],
    kind: 'energy',
    flows: ['generation'],
  },
  consumption_kwh: {
    label: 'Site consumption',
    unit: 'kWh',
    formula: 'Σ consumption (metered loads, or generation + import + discharge - export - charge where no load is metered)',
    dayInputs: ['consumption_kwh'],
    halfHourInputs: ['consumption_kwh'],
    settings: [],
    kind: 'energy',
    flows: ['consumption'],
  },
  self_consumed_kwh: {
    label: 'Generation used on site',
    unit: 'kWh',
    formula: 'Σ max(generation - export, 0) per half hour',
    dayInputs: ['self_consumed_kwh'],
    halfHourInputs: ['generation_kwh', 'export_kwh'],
    settings: [],
    kind: 'energy',
    flows: ['generation', 'export'],
  },
  self_consumption_ratio: {
    label: 'Self-consumption',
    unit: 'ratio',
    formula: 'self_consumed_kwh / generation_kwh (four places; null without generation)',
    dayInputs: ['self_consumed_kwh', 'generation_kwh'],
    halfHourInputs: ['generation_kwh', 'export_kwh'],
    settings: [],
    kind: 'derived',
    flows: [],
  },
  self_sufficiency_ratio: {
    label: 'Self-sufficiency',
    unit: 'ratio',
    formula:
      'self_supplied_kwh / consumption_positive_kwh: Σ max(consumption - import, 0) / Σ max(consumption, 0) per half hour (four places; null without consumption)',
    dayInputs: ['self_supplied_kwh', 'consumption_positive_kwh'],
    halfHourInputs: ['import_kwh', 'consumption_kwh'],
    settings: [],
    kind: 'derived',
    flows: [],
  },
  data_completeness: {
    label: 'Data completeness',
    unit: 'ratio',
    formula: 'half hours in which every expected asset reported throughout / half hours in the window',
    dayInputs: ['half_hours', 'complete_half_hours'],
    halfHourInputs: ['complete', 'coverage', 'assets_reporting'],
    settings: [],
    kind: 'derived',
    flows: [],
  },
  peak_demand_kw: {
    label: 'Peak half-hour demand',
    unit: 'kW',
    formula: "max over half hours of import × 2 (the half hour's average kW)",
    dayInputs: ['max_import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: [],
    kind: 'derived',
    flows: [],
  },
  capacity_utilisation: {
    label: 'Capacity utilisation',
    unit: 'ratio',
    formula: 'peak_demand_kw / agreed_capacity_kw',
    dayInputs: ['max_import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: ['agreed_capacity_kw'],
    kind: 'derived',
    flows: [],
  },
  import_cost_gbp: {
    label: 'Import cost (unit rate)',
    unit: 'GBP',
    formula: 'import_kwh × tariff.import_p_per_kwh / 100, rounded half away from zero to the penny once',
    dayInputs: ['import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: ['tariff.import_p_per_kwh'],
    kind: 'derived',
    flows: [],
  },
  export_income_gbp: {
    label: 'Export income',
    unit: 'GBP',
    formula: 'export_kwh × tariff.export_p_per_kwh / 100, rounded half away from zero to the penny once',
    dayInputs: ['export_kwh'],
    halfHourInputs: ['export_kwh'],
    settings: ['tariff.export_p_per_kwh'],
    kind: 'derived',
    flows: [],
  },
  pv_expected_kwh: {
    label: 'Expected PV yield',
    unit: 'kWh',
    formula: 'Σ over UK days of pv_kwp × expected_yield_kwh_per_kwp × month share ÷ days in month × calibration factor (each day rounded to the Wh)',
    dayInputs: [],
    halfHourInputs: [],
    settings: ['pv_kwp', 'expected_yield_kwh_per_kwp', 'calibration.factor'],
    kind: 'derived',
    flows: [],
  },
  pv_performance_ratio: {
    label: 'PV performance against expected',
    unit: 'ratio',
    formula: 'generation_kwh / pv_expected_kwh',
    dayInputs: ['generation_kwh'],
    halfHourInputs: ['generation_kwh'],
    settings: ['pv_kwp', 'expected_yield_kwh_per_kwp', 'calibration.factor'],
    kind: 'derived',
    flows: [],
  },
  out_of_hours_consumption_kwh: {
    label: 'Consumption out of operating hours',
    unit: 'kWh',
    formula: 'Σ consumption of half hours whose UK local start is outside every operating-hours rule of its weekday',
    dayInputs: ['out_of_hours_kwh'],
    halfHourInputs: ['consumption_kwh', 'in_hours'],
    settings: ['operating_hours'],
    kind: 'energy',
    flows: ['consumption'],
  },
  out_of_hours_share: {
    label: 'Share of consumption out of hours',
    unit: 'ratio',
    formula: 'out_of_hours_consumption_kwh / consumption_kwh',
    dayInputs: ['out_of_hours_kwh', 'consumption_kwh'],
    halfHourInputs: ['consumption_kwh', 'in_hours'],
    settings: ['operating_hours'],
    kind: 'derived',
    flows: [],
  },
};

export const FIGURE_KEYS = Object.keys(FIGURES) as FigureKey[];
