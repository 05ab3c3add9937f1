// The energy ledger's half hours for the organisation's data export (decision 0206): SQL over this
// module's own table, kept out of store.ts so the ledger's write path stays as it is.
import { sqlExportable, type ExportableCollection } from '../../platform/exportable.ts';

export const energyExportables: ExportableCollection[] = [
  sqlExportable({
    name: 'energy.site_half_hours',
    description:
      'The energy ledger per site and half hour: import, export, generation, consumption, charge, discharge and residual kWh (decimal text), basis, method, coverage and completeness.',
    table: 'energy_site_halfhours',
    columns: [
      'site_id',
      'slot:iso',
      'day:day',
      'import_kwh:text',
      'export_kwh:text',
      'generation_kwh:text',
      'consumption_kwh:text',
      'charge_kwh:text',
      'discharge_kwh:text',
      'residual_kwh:text',
      'basis',
      'consumption_method',
      'coverage',
      'assets_expected',
      'assets_reporting',
      'complete',
      'all_measured',
    ],
    period: 'slot',
    key: ['site_id:text', 'slot:timestamptz'],
  }),
];
