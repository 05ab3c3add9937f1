// The charge library's components: the non-energy charges a GB home or business pays
// (../shared/upstreams.md section 5), each with the one unit its rates are stated in and the scope
// fields a rate must or may carry. Rates are in pence (a figure published in £/MWh is stated in
// p/kWh: £1/MWh = 0.1 p/kWh; £/site/day in p/day).

export type Unit = 'p/kWh' | 'p/day' | 'p/kVA/day' | 'percent';
export type Basis = 'kwh' | 'day' | 'kva_day' | 'vat';

export interface ComponentInfo {
  component: string;
  unit: Unit;
  basis: Basis;
  description: string;
  /** DUoS rates are the distributor's: the rate names its distributor id. */
  needsDistributor: boolean;
  /** Unit rates by time band (red, amber, green): the rate names its band. */
  needsBand: boolean;
}

const c = (component: string, unit: Unit, basis: Basis, description: string, needsDistributor = false, needsBand = false): ComponentInfo => ({
  component,
  unit,
  basis,
  description,
  needsDistributor,
  needsBand,
});

export const COMPONENTS: readonly ComponentInfo[] = [
  c(
    'duos_unit',
    'p/kWh',
    'kwh',
    'DUoS unit rate by time band (red, amber, green; super_red for EHV), per distributor and optionally line-loss class',
    true,
    true,
  ),
  c('duos_fixed', 'p/day', 'day', 'DUoS fixed (standing) charge per MPAN per day, per distributor and optionally line-loss class', true),
  c('duos_capacity', 'p/kVA/day', 'kva_day', 'DUoS capacity charge per kVA of agreed supply capacity per day', true),
  c('tnuos', 'p/day', 'day', 'TNUoS transmission demand residual, a fixed charge per site per day by band (from 1 April 2023)'),
  c('bsuos', 'p/kWh', 'kwh', 'BSUoS fixed tariff on final demand (from 1 April 2023)'),
  c('cfd', 'p/kWh', 'kwh', 'Contracts for Difference supplier obligation (interim levy rate)'),
  c('ro', 'p/kWh', 'kwh', 'Renewables Obligation cost passed through per kWh'),
  c('fit', 'p/kWh', 'kwh', 'Feed-in Tariff levelisation passed through per kWh'),
  c('ccl', 'p/kWh', 'kwh', 'Climate Change Levy (business supplies; not charged where VAT is 5%)'),
  c('vat', 'percent', 'vat', 'VAT on the supply (5% domestic, 20% business: as the rate in force says)'),
];

export const COMPONENT_NAMES = COMPONENTS.map((x) => x.component);
export const componentInfo = (name: string) => COMPONENTS.find((x) => x.component === name);
/** Components charged on energy, in stack order. */
export const KWH_COMPONENTS = COMPONENTS.filter((x) => x.basis === 'kwh');
/** Components charged per day (fixed, capacity). */
export const DAY_COMPONENTS = COMPONENTS.filter((x) => x.basis === 'day' || x.basis === 'kva_day');
