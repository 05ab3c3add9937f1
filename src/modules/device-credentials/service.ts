// Device credentials (decision 0375): issue (secret shown once), list, rotate with a bounded overlap,
// revoke at once, and the check the platform calls for every `Bearer <prefix>dev_...`. The rules
// are API keys' (decision 0081) with a site instead of an environment; the secret is hashed and
// compared the one way the platform does it (platform/secrets.ts).
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import type { DeviceRefusal, RequestContext } from '../../platform/operation.ts';
import type { DeviceAuthenticator, DevicePrincipal } from '../../platform/auth.ts';
import { errors } from '../../platform/errors.ts';
import { declareErrors } from '../../platform/error-docs.ts';
import { isoTime, isoTimeOrNull } from '../../platform/schema-kit.ts';
import { hashSecret, newLookupId, newSecret, secretMatches } from '../../platform/secrets.ts';
import { madeBy, revokeCredential, rotateCredential, rotatingStatus as statusOf } from '../../platform/rotating-credentials.ts';
import type { DeviceScope } from '../../platform/roles.ts';
import type { AuditLog } from '../audit/index.ts';
import type { RegistrySites } from '../registry/index.ts';
import { credentialStore, type CredentialRow } from './store.ts';

/**
 * What a device credential may do: write telemetry for its site, send its gateway's heartbeat,
 * replay its buffer. The operations name these in Access.device.
 */
export const DEVICE_SCOPES = ['telemetry:write', 'gateway:heartbeat', 'buffer:replay'] as const;

const DAY_MS = 86_400_000;
export const DEFAULT_LIFETIME_MS = 365 * DAY_MS;
export const MAX_LIFETIME_MS = 1096 * DAY_MS;
export const MAX_OVERLAP_SECONDS = 7 * 86_400;
/** Valid credentials an organisation may hold at once. */
export const MAX_VALID_PER_ORG = 50_000;
/** last_used_at is written at most this often per credential and instance. */
const TOUCH_EVERY_MS = 60_000;

/** What changed, told after commit to whoever keeps a copy (the MQTT broker's clients). */
export type CredentialChange =
  | { kind: 'issued'; orgId: string; id: string; siteId: string; deviceIds: readonly string[] | null; scopes: DeviceScope[]; secret: string }
  | { kind: 'stopped'; orgId: string; ids: string[] };
export type CredentialListener = (change: CredentialChange) => Promise<void>;

export const { errors: credentialErrors, docs: CREDENTIAL_ERROR_DOCS } = declareErrors(
  {
    notActive: {
      status: 409,
      detail: (status: string) => `Device credential is ${status}; only an active credential can be rotated`,
      code: 'device_credential_not_active',
      doc: 'Only an active device credential can be rotated (this one is rotating, rotated, revoked or expired).',
    },
    limit: {
      status: 409,
      detail: `An organisation holds at most ${MAX_VALID_PER_ORG} valid device credentials`,
      code: 'device_credential_limit',
      doc: `The organisation already holds ${MAX_VALID_PER_ORG} valid device credentials; revoke some first.`,
    },
  },
  { fieldsIn: 'body' },
);

export interface CredentialDeps {
  db: Db;
  clock: Clock;
  audit: AuditLog;
  registry: Pick<RegistrySites, 'siteExists' | 'assets'>;
  /** The credential text's prefix: `<API key prefix>dev`. */
  prefix: string;
}

export interface IssueBody {
  name: string;
  site_id: string;
  device_ids?: string[];
  scopes: DeviceScope[];
  expires_at?: string;
}

export function createCredentialService(deps: CredentialDeps) {
  const { db, clock, audit, registry, prefix } = deps;
  const touched = new Map<string, number>();
  const listeners: CredentialListener[] = [];
  const pattern = new RegExp(`^${prefix}_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$`);

  const view = (c: CredentialRow, now = clock.now()) => ({
    id: c.id,
    name: c.name,
    site_id: c.site_id,
    device_ids: c.device_ids,
    scopes: c.scopes as DeviceScope[],
    credential_hint: `${prefix}_${c.id}_…${c.secret_hint}`,
    status: statusOf(c, now),
    created_at: isoTime(c.created_at),
    expires_at: isoTime(c.expires_at),
    revoked_at: isoTimeOrNull(c.revoked_at),
    rotated_at: isoTimeOrNull(c.rotated_at),
    replaced_by: c.replaced_by,
    overlap_until: isoTimeOrNull(c.overlap_until),
    last_used_at: isoTimeOrNull(c.last_used_at),
  });

  function fresh() {
    const id = newLookupId();
    const secret = newSecret();
    return { id, secret: `${prefix}_${id}_${secret}`, hash: hashSecret(secret), hint: secret.slice(-4) };
  }

  function checkExpiry(expiresAt: Date, now: Date) {
    if (expiresAt <= now) throw credentialErrors.field(['expires_at'], 'expires_at must be in the future', expiresAt.toISOString());
    if (expiresAt.getTime() - now.getTime() > MAX_LIFETIME_MS) {
      throw credentialErrors.field(['expires_at'], 'expires_at must be at most 1096 days ahead', expiresAt.toISOString());
    }
  }

  async function tell(change: CredentialChange) {
    for (const l of listeners) await l(change);
  }

  /** Of these asset ids, those a credential of this site (and device list) may not write. */
  async function refusals(orgId: string, siteId: string, deviceIds: readonly string[] | null, assetIds: readonly string[]) {
    const out = new Map<string, DeviceRefusal>();
    if (!assetIds.length) return out;
    const listed = deviceIds ? new Set(deviceIds) : null;
    for (const id of assetIds) {
      if (listed && !listed.has(id)) out.set(id, { reason: 'device_not_in_credential', message: `${id} is not among this credential's device_ids` });
    }
    const rest = assetIds.filter((id) => !out.has(id));
    if (rest.length) for (const [id, r] of (await sitesRefusals(orgId, new Map([[siteId, rest]]))).get(siteId) ?? []) out.set(id, r);
    return out;
  }

  /**
   * For several sites of one organisation at once, each with asset ids written for it: by site, the
   * ids registered to another site. One registry read for all of them (the MQTT consumer asks for
   * the messages of one transaction together, decision 0498).
   */
  async function sitesRefusals(orgId: string, asks: ReadonlyMap<string, readonly string[]>): Promise<Map<string, Map<string, DeviceRefusal>>> {
    const out = new Map<string, Map<string, DeviceRefusal>>();
    const ids = [...new Set([...asks.values()].flat())];
    if (!ids.length) return out;
    const siteOf = new Map((await registry.assets(db, orgId, { assetIds: ids })).map((a) => [a.asset_id, a.site_id]));
    for (const [siteId, list] of asks) {
      const refused = new Map<string, DeviceRefusal>();
      for (const id of list) {
        const registered = siteOf.get(id);
        if (registered !== undefined && registered !== siteId) {
          refused.set(id, { reason: 'device_on_another_site', message: `${id} is registered to another site, not ${siteId}` });
        }
      }
      out.set(siteId, refused);
    }
    return out;
  }

  const authenticator: DeviceAuthenticator = {
    prefix,
    async authenticate(presented: string): Promise<DevicePrincipal | null> {
      const m = pattern.exec(presented);
      if (!m) return null;
      const row = await credentialStore.byIdForAuth(db, m[1]);
      const match = secretMatches(m[2], row?.secret_hash ?? null);
      if (!row || !match) return null;
      const now = clock.now();
      const status = statusOf(row, now);
      if (status !== 'active' && status !== 'rotating') return null;
      const last = touched.get(row.id) ?? 0;
      if (now.getTime() - last >= TOUCH_EVERY_MS) {
        if (touched.size >= 100_000) touched.delete(touched.keys().next().value!);
        touched.set(row.id, now.getTime());
        await credentialStore.touch(db, row.org_id, row.id, now).catch(() => {});
      }
      const { org_id: orgId, site_id: siteId, device_ids: deviceIds } = row;
      return {
        credentialId: row.id,
        orgId,
        siteId,
        deviceIds,
        scopes: row.scopes as DeviceScope[],
        refusals: (assetIds) => refusals(orgId, siteId, deviceIds, assetIds),
      };
    },
  };

  return {
    view,

    /** Of these asset ids, those a credential of this site (and device list) may not write. */
    refusals,

    /** By site, of the asset ids written for it, those registered to another site (the MQTT consumer asks for several sites at once). */
    sitesRefusals,

    /** Every organisation's valid credentials, for the broker's clients (`db` is the background store). */
    validAll: (q: Db) => credentialStore.validAll(q, clock.now()),

    /** Told after commit of every credential issued (with its secret), rotated out or revoked. */
    onChange(listener: CredentialListener) {
      listeners.push(listener);
    },

    async list(ctx: RequestContext, siteId?: string) {
      const now = clock.now();
      return (await credentialStore.list(db, ctx.orgId, siteId)).map((c) => view(c, now));
    },

    async get(ctx: RequestContext, id: string) {
      const c = await credentialStore.get(db, ctx.orgId, id);
      if (!c) throw errors.notFound();
      return view(c);
    },

    async issue(ctx: RequestContext, body: IssueBody) {
      const now = clock.now();
      const scopes = [...new Set(body.scopes)].sort();
      const deviceIds = body.device_ids ? [...new Set(body.device_ids)].sort() : null;
      const expiresAt = body.expires_at ? new Date(body.expires_at) : new Date(now.getTime() + DEFAULT_LIFETIME_MS);
      checkExpiry(expiresAt, now);
      if (!(await registry.siteExists(db, ctx.orgId, body.site_id))) {
        throw credentialErrors.field(['site_id'], 'No such site in this organisation', body.site_id);
      }
      if (deviceIds) {
        const elsewhere = (await registry.assets(db, ctx.orgId, { assetIds: deviceIds })).filter((a) => a.site_id !== body.site_id);
        if (elsewhere.length) {
          const i = body.device_ids!.indexOf(elsewhere[0].asset_id);
          throw credentialErrors.field(['device_ids', i], `${elsewhere[0].asset_id} is registered to another site`, elsewhere[0].asset_id);
        }
      }
      const k = fresh();
      const row = await db.tx(async (q) => {
        if ((await credentialStore.countValid(q, ctx.orgId, now)) >= MAX_VALID_PER_ORG) throw credentialErrors.limit();
        const c = await credentialStore.insert(q, ctx.orgId, {
          id: k.id,
          name: body.name,
          site_id: body.site_id,
          device_ids: deviceIds,
          scopes,
          secret_hash: k.hash,
          secret_hint: k.hint,
          created_at: now,
          created_by: madeBy(ctx),
          expires_at: expiresAt,
        });
        await audit.record(q, ctx, {
          action: 'device_credential.issue',
          targetType: 'device_credential',
          targetId: c.id,
          details: { site_id: body.site_id, device_ids: deviceIds, scopes, expires_at: expiresAt.toISOString() },
        });
        return c;
      });
      await tell({ kind: 'issued', orgId: ctx.orgId, id: row.id, siteId: row.site_id, deviceIds, scopes: scopes as DeviceScope[], secret: k.secret });
      return { ...view(row, now), secret: k.secret };
    },

    async rotate(ctx: RequestContext, id: string, body: { overlap_seconds?: number; expires_at?: string } | null) {
      const now = clock.now();
      const overlap = body?.overlap_seconds ?? 0;
      const k = fresh();
      const { next, prev } = await db.tx((q) =>
        rotateCredential(q, ctx.orgId, id, {
          store: credentialStore,
          now,
          maxLifetimeMs: MAX_LIFETIME_MS,
          overlapSeconds: overlap,
          expiresAt: body?.expires_at,
          notActive: credentialErrors.notActive,
          check: (expiresAt) => checkExpiry(expiresAt, now),
          createdBy: madeBy(ctx),
          issue: () => k,
          audit: (old, details) => audit.record(q, ctx, { action: 'device_credential.rotate', targetType: 'device_credential', targetId: old.id, details }),
        }),
      );
      await tell({
        kind: 'issued',
        orgId: ctx.orgId,
        id: next.id,
        siteId: next.site_id,
        deviceIds: next.device_ids,
        scopes: next.scopes as DeviceScope[],
        secret: k.secret,
      });
      if (!prev.overlap_until) await tell({ kind: 'stopped', orgId: ctx.orgId, ids: [prev.id] });
      return { ...view(next, now), secret: k.secret, predecessor: view(prev, now) };
    },

    async revoke(ctx: RequestContext, id: string) {
      const now = clock.now();
      const { row, ended } = await db.tx((q) =>
        revokeCredential(q, ctx.orgId, id, {
          store: credentialStore,
          now,
          audit: (details) => audit.record(q, ctx, { action: 'device_credential.revoke', targetType: 'device_credential', targetId: id, ...details }),
        }),
      );
      await tell({ kind: 'stopped', orgId: ctx.orgId, ids: [id, ...ended] });
      return view(row, now);
    },

    authenticator,
  };
}

export type CredentialService = ReturnType<typeof createCredentialService>;
