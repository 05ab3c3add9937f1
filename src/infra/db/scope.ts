// The organisation a request's queries run for. Set by the platform around each authenticated
// handler; the store adapters then run queries as the restricted role `eps_app` with `app.org_id`
// set, so PostgreSQL row-level security hides every other organisation's rows even from a query
// that forgot its own org filter (defence in depth; every query still filters on org_id).
import { AsyncLocalStorage } from 'node:async_hooks';

export const APP_ROLE = 'eps_app';

const scope = new AsyncLocalStorage<{ orgId: string }>();

export function currentOrgScope(): string | undefined {
  return scope.getStore()?.orgId;
}

export function runInOrgScope<T>(orgId: string, fn: () => T): T {
  return scope.run({ orgId }, fn);
}

/** Work that must see every organisation (jobs, provisioning) runs outside any scope. */
export function runUnscoped<T>(fn: () => T): T {
  return scope.exit(fn);
}

/** The statement that puts a session (or a transaction, when local) into a scope or out of it. */
export function scopeStatement(orgId: string | undefined, local: boolean): [string, unknown[]] {
  return orgId
    ? [`select set_config('app.org_id', $1, ${local}), set_config('role', '${APP_ROLE}', ${local})`, [orgId]]
    : [`select set_config('app.org_id', '', ${local}), set_config('role', 'none', ${local})`, []];
}
