// CRM (module `crm`): accounts, contacts, deals with a stage machine, activities, tasks and a
// weighted forecast, with the duties personal data brings (opt-out, erasure, retention).
// One service a sub-domain, each in its own file; this file wires them:
//   settings.ts (stages, retention, templates) · accounts.ts · contacts.ts · privacy.ts (opt-out,
//   erasure, outreach drafts, retention) · deals.ts (stage machine) · forecast.ts · activities.ts ·
//   tasks.ts · import.ts (CSV tracker) · intake.ts (public lead form) · records.ts (views, lookups,
//   pages shared by them) · store.ts (SQL).
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { CRM_ERROR_DOCS } from './errors.ts';
import { type CrmServices, crmOperations } from './routes.ts';
import { crmConfig } from './config.ts';
import { createLeadIntake, INTAKE_LIMIT, intakeLimitClass, intakeOperation } from './intake.ts';
import { createTrackerImport } from './import.ts';
import { sectionOf } from '../../core/config-section.ts';
import { createPages } from './records.ts';
import { createCrmSettings } from './settings.ts';
import { createAccounts } from './accounts.ts';
import { createContacts } from './contacts.ts';
import { createPrivacy } from './privacy.ts';
import { createDeals } from './deals.ts';
import { createForecast } from './forecast.ts';
import { createActivities } from './activities.ts';
import { createTasks } from './tasks.ts';

export const crmModule: ModuleCreate = (deps) => {
  const { db, clock } = deps;
  const audit = deps.services.get(AUDIT_LOG);
  const pages = createPages({ db, cursors: deps.cursors });
  const settings = createCrmSettings({ db, clock, audit });
  const contacts = createContacts({ db, clock, audit, pages, settings });
  const tasks = createTasks({ db, clock, audit, pages });
  const crm: CrmServices = {
    settings,
    accounts: createAccounts({ db, clock, audit, pages }),
    contacts,
    privacy: createPrivacy({ db, clock, audit, settings }),
    deals: createDeals({ db, clock, audit, pages, settings }),
    forecast: createForecast({ db, clock }),
    activities: createActivities({ db, clock, audit, pages }),
    tasks,
    importTracker: createTrackerImport({ db, clock, audit, settings, contacts }),
  };
  const intake = createLeadIntake({ db, clock, audit, contacts, tasks });
  const config = sectionOf(deps.config, crmConfig);
  return {
    tags: { crm: 'CRM (module crm): accounts, contacts (personal data: opt-out, erasure, retention), deals and their stages, activities, tasks, forecast.' },
    errors: CRM_ERROR_DOCS,
    operations: [...crmOperations(crm), intakeOperation(intake, { config, clock })],
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
