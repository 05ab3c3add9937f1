// Alerts driven by API keys: `partner_api_key_expiring` (a valid, unrotated key within 14 days of
// expiry; resolved on rotation, revocation or expiry) and `partner_api_operation_deprecated` (one
// per organisation and deprecated key operation while a valid key could call it; resolved after
// the sunset or when no such key remains). Evaluated after every key change, in its transaction,
// and by a scheduled job that walks every organisation holding keys.
import type { Queryable } from '../../../infra/db/index.ts';
import type { Operation } from '../../../platform/operation.ts';
import { isReadScope, type Scope } from '../../../platform/roles.ts';
import { PARTNER_ALERTS, type AlertStream } from '../../alerts/index.ts';
import { keyStore, type KeyRow } from './store.ts';
import { DAY_MS } from '../common.ts';

export const EXPIRY_WARNING_MS = 14 * DAY_MS;

export const expiringKey = (keyId: string) => `${PARTNER_ALERTS.keyExpiring}:${keyId}`;
export const deprecatedOp = (operationId: string) => `${PARTNER_ALERTS.operationDeprecated}:${operationId}`;

/** Whether this key may call the operation (environment and scope; validity is checked by the caller). */
export function keyCanCall(key: Pick<KeyRow, 'environment' | 'scopes'>, op: Operation): boolean {
  if (op.access.kind !== 'key') return false;
  if (key.environment === 'sandbox' && !op.sandbox) return false;
  const need = op.access.scope;
  const scopes = key.scopes as Scope[];
  if (need === 'any') return true;
  if (need === 'read') return scopes.some(isReadScope);
  return scopes.includes(need);
}

const sunsetEnd = (op: Operation) => new Date(`${op.deprecation!.sunset}T23:59:59Z`);

export function createKeyAlerts(deps: { alerts: AlertStream; deprecatedOps: () => readonly Operation[] }) {
  const { alerts } = deps;

  async function syncExpiring(q: Queryable, orgId: string, keys: KeyRow[], now: Date) {
    const open = new Set((await alerts.listOpen(q, orgId, PARTNER_ALERTS.keyExpiring)).map((a) => a.subject?.id));
    for (const k of keys) {
      const valid = !k.revoked_at && k.expires_at > now && !k.replaced_by;
      const soon = valid && k.expires_at.getTime() - now.getTime() <= EXPIRY_WARNING_MS;
      if (soon === open.has(k.id)) continue;
      if (soon) {
        await alerts.raise(q, orgId, {
          type: PARTNER_ALERTS.keyExpiring,
          source: 'devtools.apikeys',
          severity: 'warning',
          title: `API key "${k.name}" expires on ${k.expires_at.toISOString().slice(0, 10)}; rotate it`,
          subject: { type: 'api_key', id: k.id },
          details: { key_id: k.id, environment: k.environment, expires_at: k.expires_at.toISOString() },
          dedupeKey: expiringKey(k.id),
        });
      } else {
        const why = k.revoked_at ? 'revoked' : k.replaced_by ? 'rotated' : k.expires_at <= now ? 'expired' : 'not_expiring';
        await alerts.resolve(q, orgId, expiringKey(k.id), why);
      }
    }
  }

  async function syncDeprecations(q: Queryable, orgId: string, now: Date) {
    const ops = deps.deprecatedOps();
    if (ops.length === 0) return;
    const valid = await keyStore.validKeys(q, orgId, now);
    for (const op of ops) {
      const dep = op.deprecation!;
      const afterSunset = now > sunsetEnd(op);
      const capable = !afterSunset && valid.some((k) => keyCanCall(k, op));
      if (capable) {
        await alerts.raise(q, orgId, {
          type: PARTNER_ALERTS.operationDeprecated,
          source: 'devtools.apikeys',
          severity: 'warning',
          title: `${op.method} ${op.path} is deprecated and will be removed after ${dep.sunset}; use ${dep.replacement}`,
          subject: { type: 'operation', id: op.operationId },
          details: {
            operation_id: op.operationId,
            method: op.method,
            path: op.path,
            deprecated_on: dep.on,
            sunset: dep.sunset,
            replacement: dep.replacement,
          },
          dedupeKey: deprecatedOp(op.operationId),
        });
      } else {
        await alerts.resolve(q, orgId, deprecatedOp(op.operationId), afterSunset ? 'sunset_passed' : 'no_capable_key');
      }
    }
  }

  return {
    /** Brings both alert kinds of one organisation up to date (call inside the write's transaction). */
    async sync(q: Queryable, orgId: string, now: Date) {
      await syncExpiring(q, orgId, await keyStore.list(q, orgId), now);
      await syncDeprecations(q, orgId, now);
    },
  };
}

export type KeyAlerts = ReturnType<typeof createKeyAlerts>;
