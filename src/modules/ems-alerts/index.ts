// EMS alerts: evaluation of the organisation's own data into the organisation alert stream,
// ranked by pound impact per day; routing to email, team chat and signed webhooks (module
// ems/routing); alert admin over the stream. Reads other modules only through their services.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { ALERT_STREAM } from '../alerts/index.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { createSecretBox } from '../devtools/index.ts';
import { MEMBERS } from '../identity/index.ts';
import { NOTIFICATIONS } from '../notifications/index.ts';
import { ORG_DIRECTORY } from '../orgs/index.ts';
import { REGISTRY_READS } from '../registry/index.ts';
import { TELEMETRY_READS } from '../telemetry/index.ts';
import { ENERGY_FIGURES } from '../energy/index.ts';
import { createAdmin } from './admin.ts';
import { createChannels } from './channels.ts';
import { sectionOf } from '../../core/config-section.ts';
import { emsAlertsConfig } from './config.ts';
import { EMS_ERROR_DOCS } from './errors.ts';
import { createEvaluation } from './evaluate.ts';
import { emsAlertOperations } from './routes.ts';
import { createRouting } from './routing.ts';

export { rankAlerts, totalPence, compareRank, type Rankable } from './ranking.ts';
export { pencePerDay } from './sources.ts';

export const emsAlertsModule: ModuleCreate = (deps) => {
  const { db, clock, config, cursors } = deps;
  const alerts = deps.services.get(ALERT_STREAM);
  const audit = deps.services.get(AUDIT_LOG);
  const members = deps.services.get(MEMBERS);
  const notifications = deps.services.get(NOTIFICATIONS);
  const channels = createChannels(config, sectionOf(config, emsAlertsConfig));
  // Channel secrets are sealed like webhook signing secrets, under a key derived from the service secret.
  const box = createSecretBox(`${config.jwtSecret}:ems-routing`);
  const evaluation = createEvaluation({
    db,
    clock,
    alerts,
    audit,
    registry: deps.services.get(REGISTRY_READS),
    telemetry: deps.services.get(TELEMETRY_READS),
    energy: deps.services.get(ENERGY_FIGURES),
  });
  const routing = createRouting({
    db,
    clock,
    config,
    callBudgetMs: sectionOf(config, emsAlertsConfig).callBudgetMs,
    audit,
    cursors,
    box,
    channels,
    members,
    notifications,
  });
  const admin = createAdmin({ db, clock, alerts, audit, cursors, members, notifications });
  return {
    tags: {
      'ems-alerts': "EMS alerts from the organisation's own data, ranked by pound impact per day, and their severity policy.",
      'ems-routing': 'Routing rules that send EMS alerts by email, team chat and signed webhook, with escalation and a delivery log (module ems/routing).',
      alerts: 'Alert admin: the staff history list, and acknowledge, assign, resolve, comment and stats for the organisation.',
    },
    errors: EMS_ERROR_DOCS,
    operations: emsAlertOperations({ evaluation, routing, admin, orgs: deps.services.get(ORG_DIRECTORY), db: deps.db }),
    async stop() {
      channels.close();
    },
  };
};

/** This module as the module list names it. */
export const emsAlertsDefinition: ModuleDefinition = {
  name: 'ems-alerts',
  dependsOn: ['orgs', 'identity', 'audit', 'telemetry', 'registry', 'energy', 'alerts', 'devtools', 'notifications', 'market'],
  migrations: migrationsDir(import.meta.url),
  config: emsAlertsConfig,
  create: emsAlertsModule,
};
