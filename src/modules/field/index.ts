// Field operations (module `field`): work orders with SLA policies, the dispatch list and the due
// list, work opened from organisation alerts and stale device feeds, and the SLA report.
import { migrationsDir, type ModuleDefinition, type ModuleCreate } from '../../platform/module.ts';
import { ALERT_STREAM } from '../alerts/index.ts';
import { AUDIT_LOG } from '../audit/index.ts';
import { MEMBERS } from '../identity/index.ts';
import { NOTIFICATIONS } from '../notifications/index.ts';
import { REGISTRY_READS, REGISTRY_SITES } from '../registry/index.ts';
import { FIELD_ERROR_DOCS } from './errors.ts';
import { fieldOperations } from './routes.ts';
import { createField } from './service.ts';
import { fieldExportables } from './store.ts';

export const fieldModule: ModuleCreate = (deps) => {
  const field = createField({
    db: deps.db,
    clock: deps.clock,
    cursors: deps.cursors,
    alerts: deps.services.get(ALERT_STREAM),
    audit: deps.services.get(AUDIT_LOG),
    members: deps.services.get(MEMBERS),
    notifications: deps.services.get(NOTIFICATIONS),
    registry: deps.services.get(REGISTRY_READS),
    sites: deps.services.get(REGISTRY_SITES),
  });
  return {
    tags: {
      field: 'Field work orders (module field): SLA policies per priority, the dispatch and due lists, work from alerts and stale feeds, the SLA report.',
    },
    errors: FIELD_ERROR_DOCS,
    operations: fieldOperations(field),
  };
};

/** This module as the module list names it. */
export const fieldDefinition: ModuleDefinition = {
  name: 'field',
  dependsOn: ['orgs', 'identity', 'audit', 'telemetry', 'registry', 'alerts', 'notifications', 'market'],
  migrations: migrationsDir(import.meta.url),
  exportable: fieldExportables,
  create: fieldModule,
};
