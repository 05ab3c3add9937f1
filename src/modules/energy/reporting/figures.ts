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

/** An energy figure: one flow's total over the window, from its own rollup column. */
function flowTotal(flow: string, label: string, formula = `Σ ${flow} over the window's half hours`): FigureDef {
  const column = `${flow}_kwh`;
  return { label, unit: 'kWh', formula, dayInputs: [column], halfHourInputs: [column], settings: [], kind: 'energy', flows: [flow] };
}

/** A figure worked out from others and the site's settings (none unless named): no flows of its own. */
function derived(d: Omit<FigureDef, 'settings' | 'kind' | 'flows'> & { settings?: string[] }): FigureDef {
  return { ...d, settings: d.settings ?? [], kind: 'derived', flows: [] };
}

export const FIGURES: Record<FigureKey, FigureDef> = {
  import_kwh: flowTotal('import', 'Grid import'),
  export_kwh: flowTotal('export', 'Grid export'),
  generation_kwh: flowTotal('generation', 'On-site generation'),
  consumption_kwh: flowTotal(
    'consumption',
    'Site consumption',
    'Σ consumption (metered loads, or generation + import + discharge - export - charge where no load is metered)',
  ),
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
  self_consumption_ratio: derived({
    label: 'Self-consumption',
    unit: 'ratio',
    formula: 'self_consumed_kwh / generation_kwh (four places; null without generation)',
    dayInputs: ['self_consumed_kwh', 'generation_kwh'],
    halfHourInputs: ['generation_kwh', 'export_kwh'],
  }),
  self_sufficiency_ratio: derived({
    label: 'Self-sufficiency',
    unit: 'ratio',
    formula:
      'self_supplied_kwh / consumption_positive_kwh: Σ max(consumption - import, 0) / Σ max(consumption, 0) per half hour (four places; null without consumption)',
    dayInputs: ['self_supplied_kwh', 'consumption_positive_kwh'],
    halfHourInputs: ['import_kwh', 'consumption_kwh'],
  }),
  data_completeness: derived({
    label: 'Data completeness',
    unit: 'ratio',
    formula: 'half hours in which every expected asset reported throughout / half hours in the window',
    dayInputs: ['half_hours', 'complete_half_hours'],
    halfHourInputs: ['complete', 'coverage', 'assets_reporting'],
  }),
  peak_demand_kw: derived({
    label: 'Peak half-hour demand',
    unit: 'kW',
    formula: "max over half hours of import × 2 (the half hour's average kW)",
    dayInputs: ['max_import_kwh'],
    halfHourInputs: ['import_kwh'],
  }),
  capacity_utilisation: derived({
    label: 'Capacity utilisation',
    unit: 'ratio',
    formula: 'peak_demand_kw / agreed_capacity_kw',
    dayInputs: ['max_import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: ['agreed_capacity_kw'],
  }),
  import_cost_gbp: derived({
    label: 'Import cost (unit rate)',
    unit: 'GBP',
    formula: 'import_kwh × tariff.import_p_per_kwh / 100, rounded half away from zero to the penny once',
    dayInputs: ['import_kwh'],
    halfHourInputs: ['import_kwh'],
    settings: ['tariff.import_p_per_kwh'],
  }),
  export_income_gbp: derived({
    label: 'Export income',
    unit: 'GBP',
    formula: 'export_kwh × tariff.export_p_per_kwh / 100, rounded half away from zero to the penny once',
    dayInputs: ['export_kwh'],
    halfHourInputs: ['export_kwh'],
    settings: ['tariff.export_p_per_kwh'],
  }),
  pv_expected_kwh: derived({
    label: 'Expected PV yield',
    unit: 'kWh',
    formula: 'Σ over UK days of pv_kwp × expected_yield_kwh_per_kwp × month share ÷ days in month × calibration factor (each day rounded to the Wh)',
    dayInputs: [],
    halfHourInputs: [],
    settings: ['pv_kwp', 'expected_yield_kwh_per_kwp', 'calibration.factor'],
  }),
  pv_performance_ratio: derived({
    label: 'PV performance against expected',
    unit: 'ratio',
    formula: 'generation_kwh / pv_expected_kwh',
    dayInputs: ['generation_kwh'],
    halfHourInputs: ['generation_kwh'],
    settings: ['pv_kwp', 'expected_yield_kwh_per_kwp', 'calibration.factor'],
  }),
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
  out_of_hours_share: derived({
    label: 'Share of consumption out of hours',
    unit: 'ratio',
    formula: 'out_of_hours_consumption_kwh / consumption_kwh',
    dayInputs: ['out_of_hours_kwh', 'consumption_kwh'],
    halfHourInputs: ['consumption_kwh', 'in_hours'],
    settings: ['operating_hours'],
  }),
};

export const FIGURE_KEYS = Object.keys(FIGURES) as FigureKey[];
