// Organisation data export: the collections the owning modules offer (each a service of its own,
// never their tables), jobs on the platform queue, streamed downloads and expiry (decisions 0203-0206).
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { TELEMETRY_EXPORTABLE } from '../telemetry/index.ts';
import { STATEMENTS_EXPORTABLE } from '../statements/index.ts';
import { REGISTRY_EXPORTABLE } from '../registry/index.ts';
import { ALERTS_EXPORTABLE } from '../alerts/index.ts';
import { AUDIT_EXPORTABLE } from '../audit/index.ts';
import { ENERGY_EXPORTABLE } from '../energy/index.ts';
import { SETTLEMENT_EXPORTABLE } from '../settlement/index.ts';
import { FIELD_EXPORTABLE } from '../field/index.ts';
import { HUB_EXPORTABLE } from '../hub/index.ts';
import { exportConfig } from './config.ts';
import { createExportService, WRITE_KIND } from './service.ts';
import { exportOperations } from './routes.ts';
import type { ExportableCollection } from './collections.ts';

export type { ExportableCollection, ExportPeriod } from './collections.ts';

export const exportModule: ModuleFactory = (deps) => {
  const settings = sectionOf(deps.config, exportConfig);
  // The owning modules' collections, checked against the shape here at compile time.
  const collections: ExportableCollection[] = [
    REGISTRY_EXPORTABLE,
    TELEMETRY_EXPORTABLE,
    ENERGY_EXPORTABLE,
    ALERTS_EXPORTABLE,
    FIELD_EXPORTABLE,
    HUB_EXPORTABLE,
    SETTLEMENT_EXPORTABLE,
    STATEMENTS_EXPORTABLE,
    AUDIT_EXPORTABLE,
  ].flatMap((key) => deps.services.get(key) as readonly ExportableCollection[]);
  const service = createExportService({ ...deps, settings, collections });
  return {
    name: 'export',
    tags: { export: 'Export of an organisation’s data: manifest, background jobs, progress and streamed JSON Lines or CSV.' },
    errors: [
      { code: 'export_not_ready', status: 409, description: 'The export job has not completed yet.' },
      { code: 'export_expired', status: 410, description: 'The export’s files passed their expiry and were deleted.' },
    ],
    operations: exportOperations(service),
    background: {
      jobs: [{ kind: WRITE_KIND, handler: service.run }],
      schedules: [
        {
          kind: 'export.expire',
          everyMs: 10 * 60_000,
          run: async () => {
            await service.expire();
          },
        },
      ],
    },
  };
};

/** This module as the module list names it. */
export const exportDefinition: ModuleDefinition = {
  name: 'export',
  dependsOn: ['orgs', 'registry', 'telemetry', 'energy', 'alerts', 'field', 'hub', 'settlement', 'statements', 'audit'],
  migrations: migrationsDir(import.meta.url),
  config: exportConfig,
  create: exportModule,
};
