// Shared pieces of the developer platform: environments, ids, schemas and the sandbox organisation.
import { createHmac, randomUUID } from 'node:crypto';
import { Type, type TSchema, type Static } from 'typebox';
import type { Config } from '../../config.ts';

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

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC' });
export const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);

/** Page size for every cursor list of the developer platform. */
export const PAGE_LIMIT = { default: 50, max: 200 };
export const LimitParam = Type.Integer({ minimum: 1, maximum: PAGE_LIMIT.max, description: `Page size, 1 to ${PAGE_LIMIT.max}, default ${PAGE_LIMIT.default}` });
export const CursorParam = Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' });
export const PageMembers = {
  next_cursor: Nullable(Type.String({ description: 'Cursor of the next page; null on the last page' })),
  has_more: Type.Boolean(),
};

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
