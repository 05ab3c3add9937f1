// Organisation data export: the collections the owning modules declare in their manifests
// (ModuleDefinition.exportable, gathered by the platform into deps.exportables; never their tables
// and never a list of modules here), jobs on the platform queue, streamed downloads and expiry
// (decisions 0203-0206, 0355).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { sectionOf } from '../../core/config-section.ts';
import { exportConfig } from './config.ts';
import { createExportService, EXPORT_ERROR_DOCS, WRITE_KIND } from './service.ts';
import { exportOperations } from './routes.ts';

export type { ExportableCollection, ExportPeriod } from './collections.ts';

export const exportModule: ModuleCreate = (deps) => {
  const settings = sectionOf(deps.config, exportConfig);
  const service = createExportService({ ...deps, settings, collections: deps.exportables });
  return {
    tags: { export: 'Export of an organisation’s data: manifest, background jobs, progress and streamed JSON Lines or CSV.' },
    errors: EXPORT_ERROR_DOCS,
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
  // Its own tables only: the collections come from every module's manifest, whatever the order.
  dependsOn: ['orgs', 'audit'],
  migrations: migrationsDir(import.meta.url),
  config: exportConfig,
  create: exportModule,
};
