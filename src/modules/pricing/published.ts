// Figures the charge library ships with: only rates with a published source, named in the record
// (../shared/upstreams.md). Everything else (DUoS rates and time bands, TNUoS, BSUoS, CfD, RO, FiT,
// VAT) is stated by the organisation with its own source: a rate nobody stated is never defaulted.
// Decision 0150.

export interface PublishedRate {
  rate_id: string;
  component: string;
  rate: string;
  distributor_id: null;
  line_loss_class: null;
  supply_type: 'domestic' | 'business' | null;
  band: null;
  valid_from: string;
  valid_to: string | null;
  source: string;
}

const CCL_RATES_PAGE =
  'HM Government, "Climate Change Levy rates" (gov.uk/government/publications/rates-and-allowances-climate-change-levy/climate-change-levy-rates)';

export const PUBLISHED_RATES: readonly PublishedRate[] = [
  {
    rate_id: 'published-ccl-electricity-2022',
    component: 'ccl',
    rate: '0.775',
    distributor_id: null,
    line_loss_class: null,
    supply_type: 'business',
    band: null,
    valid_from: '2022-04-01',
    valid_to: '2026-04-01',
    source: `Climate Change Levy main rate for electricity, £0.00775/kWh for 1 April 2022 to 31 March 2026: ${CCL_RATES_PAGE}`,
  },
  {
    rate_id: 'published-ccl-electricity-2026',
    component: 'ccl',
    rate: '0.801',
    distributor_id: null,
    line_loss_class: null,
    supply_type: 'business',
    band: null,
    valid_from: '2026-04-01',
    valid_to: null,
    source: `Climate Change Levy main rate for electricity, £0.00801/kWh from 1 April 2026 (RPI uprating): ${CCL_RATES_PAGE}; gov.uk "Climate Change Levy: changes to rates from 1 April 2026"`,
  },
];
