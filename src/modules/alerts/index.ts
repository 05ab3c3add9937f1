// The organisation alert stream, for every module: raise(q, orgId, {...}) and resolve(q, orgId,
// dedupeKey, why) inside the caller's transaction. Each transition publishes the durable domain
// event `alert.raised` / `alert.resolved` (src/infra/jobs publish), which webhooks deliver.
import { migrationsDir, type ModuleDefinition } from '../../platform/module.ts';
import { serviceKey } from '../../platform/services.ts';
import { alertsExportables } from './store.ts';
import { createAlertStream, type AlertStream } from './service.ts';
export { alertView, dedupeKeyOf, ALERT_RAISED, ALERT_RESOLVED, ALERT_CHANGED } from './service.ts';
export type { AlertStream, AlertView, RaiseAlert } from './service.ts';
export type { AlertRow, Severity } from './store.ts';

/** Alert types raised by the developer platform. */
export const PARTNER_ALERTS = {
  webhookDisabled: 'partner_webhook_disabled',
  keyExpiring: 'partner_api_key_expiring',
  operationDeprecated: 'partner_api_operation_deprecated',
} as const;

/** The organisation alert stream: `deps.services.get(ALERT_STREAM).raise(q, orgId, {...})`. */
export const ALERT_STREAM = serviceKey<AlertStream>('alerts.stream');

/** This module as the module list names it. */
export const alertsDefinition: ModuleDefinition = {
  name: 'alerts',
  dependsOn: ['orgs'],
  migrations: migrationsDir(import.meta.url),
  scopes: { 'alerts:read': "read the organisation's alert stream" },
  exportable: alertsExportables,
  provides: (deps, registry) => {
    registry.provide(ALERT_STREAM, createAlertStream({ clock: deps.clock }));
  },
};
