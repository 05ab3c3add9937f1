// Plan studies: study types with CSV templates and samples, studies with versioned inputs, runs as
// background jobs on the platform queue, an HTML report and a proposal pack (decision 0210).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { STUDY_ERROR_DOCS } from './errors.ts';
import { studyOperations } from './routes.ts';
import { createStudies, RUN_KIND } from './service.ts';
import { studiesConfig } from './config.ts';
import { sectionOf } from '../../core/config-section.ts';

export const studiesModule: ModuleCreate = (deps) => {
  const studies = createStudies({
    db: deps.db,
    backgroundDb: deps.backgroundDb,
    clock: deps.clock,
    jobs: deps.jobs,
    cursors: deps.cursors,
    maxQueuedRuns: sectionOf(deps.config, studiesConfig).maxQueuedRuns,
  });
  return {
    tags: { studies: 'Plan studies: projections from CSV inputs, run in the background, with an HTML report and a proposal pack.' },
    errors: STUDY_ERROR_DOCS,
    operations: studyOperations(studies),
    background: { jobs: [{ kind: RUN_KIND, handler: studies.runJob }] },
  };
};

/** This module as the module list names it. */
export const studiesDefinition: ModuleDefinition = {
  name: 'studies',
  dependsOn: ['orgs', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: studiesConfig,
  create: studiesModule,
};
