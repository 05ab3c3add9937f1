// Shared pieces of the developer platform: environments, ids, schemas and the sandbox organisation.
import { createHmac, randomUUID } from 'node:crypto';
import { Type, type TSchema, type Static } from 'typebox';
import type { Config } from '../../core/config.ts';
import { LimitParam as KitLimitParam } from '../../platform/schema-kit.ts';

export const ENVIRONMENTS = ['live', 'sandbox'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const API_VERSION = '2026-10-15';

export const EVENT_TYPES = ['alert.raised', 'alert.resolved', 'device.offline', 'webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const EnvironmentSchema = Type.Union([Type.Literal('live'), Type.Literal('sandbox')], {
  description: '`live` (default) or `sandbox`',
});
export const EnvironmentQuery = Type.Object({ environment: Type.Optional(EnvironmentSchema) }, { additionalProperties: false });

// NUL characters in any input are refused by the platform (platform/text-guard.ts).
export const Text = (opts: { minLength?: number; maxLength: number; description?: string }) => Type.String(opts);
/** A path identifier: 1 to 64 characters. */
export const IdParam = Type.String({ minLength: 1, maxLength: 64 });

// The shapes every module shares come from the platform's kit (decision 0032).
export { Timestamp, Nullable, CursorParam, PageMembers } from '../../platform/schema-kit.ts';

/** Page size for every cursor list of the developer platform. */
export const PAGE_LIMIT = { default: 50, max: 200 };
export const LimitParam = KitLimitParam(PAGE_LIMIT);

/** A body that may be omitted: absent and `{...}` are both accepted. */
export function optionalBody<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...(schema as object), type: ['object', 'null'] });
}

export function newId(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '')}`;
}

export const iso = (d: Date | string | null | undefined): string | null => (d ? new Date(d).toISOString() : null);

/** SQL text of a timestamp column with microseconds, for exact keyset cursors. */
export const tsKey = (col: string) => `to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The generated sandbox organisation of a real one: demo-sandbox-<16 hex>, stable per deployment. */
export function sandboxOrgId(config: Pick<Config, 'jwtSecret'>, orgId: string): string {
  const h = createHmac('sha256', config.jwtSecret).update(`sandbox-org:${orgId}`).digest('hex');
  return `demo-sandbox-${h.slice(0, 16)}`;
}

export const DAY_MS = 86_400_000;
