// The one mechanism that records who did what: every sign-in, every refusal that matters
// (lockout, token reuse) and every configuration write in any module. Record inside the same
// transaction as the write (pass the transaction's Queryable) so the log never disagrees.
import { migrationsDir, type ModuleCreate, type ModuleDefinition } from '../../platform/module.ts';
import { auditExportables } from './store.ts';
import { auditOperations } from './routes.ts';
import { AUDIT_LOG, createAuditLog } from './log.ts';

export { AUDIT_LOG, actorOf, createAuditLog, type AuditActor, type AuditEntry, type AuditLog, type Redactor } from './log.ts';
export { AUDIT_ACTIONS, type AuditActionInfo } from './actions.ts';
/** The one CSV writer (RFC 4180, formula defusing) for every CSV export. */

/** The audit log reads (page, action catalogue, CSV export) as a module. */
export const auditModule: ModuleCreate = (deps) => ({
  tags: {
    audit: 'The audit log: sign-ins, refusals that matter and every configuration write, with CSV export.',
  },
  operations: auditOperations(deps),
});

export const auditDefinition: ModuleDefinition = {
  name: 'audit',
  dependsOn: ['orgs'],
  migrations: migrationsDir(import.meta.url),
  exportable: auditExportables,
  provides: (deps, registry) => {
    registry.provide(AUDIT_LOG, createAuditLog(deps.clock));
  },
  create: auditModule,
};
