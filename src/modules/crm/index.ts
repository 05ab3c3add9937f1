// CRM (module `crm`): accounts, contacts, deals with a stage machine, activities, tasks and a
// weighted forecast, with the duties personal data brings (opt-out, erasure, retention).
import { migrationsDir, type ModuleDefinition, type ModuleFactory } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { CRM_ERROR_DOCS } from './errors.ts';
import { crmOperations } from './routes.ts';
import { createCrm } from './service.ts';
import { crmConfig } from './config.ts';
import { INTAKE_LIMIT, intakeLimitClass, intakeOperation } from './intake.ts';
import { createTrackerImport } from './import.ts';
import { sectionOf } from '../../core/config-section.ts';

export const crmModule: ModuleFactory = (deps) => {
  const audit = deps.services.get(AUDIT_LOG);
  const crm = createCrm({ db: deps.db, clock: deps.clock, cursors: deps.cursors, audit });
  const importTracker = createTrackerImport({ db: deps.db, clock: deps.clock, audit, crm });
  const config = sectionOf(deps.config, crmConfig);
  return {
    name: 'crm',
    tags: { crm: 'CRM (module crm): accounts, contacts (personal data: opt-out, erasure, retention), deals and their stages, activities, tasks, forecast.' },
    errors: CRM_ERROR_DOCS,
    operations: [...crmOperations(crm, importTracker), intakeOperation(crm, { config, clock: deps.clock })],
    // The public form is limited per source address, before its body is read (platform limit class).
    limitClasses: { [INTAKE_LIMIT]: intakeLimitClass(config) },
  };
};

/** This module as the module list names it. */
export const crmDefinition: ModuleDefinition = {
  name: 'crm',
  dependsOn: ['orgs', 'audit', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: crmConfig,
  create: crmModule,
};
