// The one kit of shapes every module's schemas are made of, so answers cannot drift between
// modules: nullable members, timestamps, money, pages and cursors (decision 0032).
import { Type, type TSchema } from 'typebox';

/** A member that may be null (always present in the answer). */
export const Nullable = <T extends TSchema>(t: T, description?: string) => Type.Union([t, Type.Null()], description ? { description } : {});

/**
 * One of a list of strings, as a union of constants (`anyOf` of `const`). Typed as the values' union:
 * TypeBox types a union built from an array (not a tuple) as `never`.
 */
export const LiteralUnion = <T extends string>(values: readonly T[], options?: { description?: string }) =>
  Type.Unsafe<T>(
    Type.Union(
      values.map((v) => Type.Literal(v)),
      options,
    ),
  );

/** An instant: ISO 8601 in UTC with the `Z` suffix and milliseconds, as `isoTime` writes it. */
export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 in UTC with Z and milliseconds, e.g. 2026-11-23T10:00:00.000Z' });

/**
 * Writes an instant the one way answers carry it: UTC, `Z`, milliseconds always
 * (`2026-11-23T10:00:00.000Z`). Signed documents keep the format their decision record fixes.
 */
export function isoTime(t: Date | number | string): string {
  return new Date(t).toISOString();
}

/** Like isoTime, for a value that may be absent. */
export const isoTimeOrNull = (t: Date | number | string | null | undefined): string | null => (t === null || t === undefined ? null : isoTime(t));

/** A long job's progress (src/kit/progress.ts, decision 0451): the one shape every job answers. */
export const JobProgressSchema = (unit: string, of: string) =>
  Type.Object(
    {
      done: Type.Integer({ minimum: 0, description: `${unit[0].toUpperCase()}${unit.slice(1)} done so far` }),
      total: Nullable(Type.Integer({ minimum: 0 }), `${unit[0].toUpperCase()}${unit.slice(1)} in the job (${of}); null while not known`),
      unit: Type.String({ description: `What is counted: \`${unit}\`` }),
      percent: Nullable(Type.Integer({ minimum: 0, maximum: 100 }), 'floor(done × 100 ÷ total); 100 for an empty job; null while the total is not known'),
    },
    { description: 'Progress: the same shape on every long job (decision 0451)' },
  );

/** Money as a decimal string (never binary floating point): pounds or pence as the member says. */
export const Money = (description: string) => Type.String({ pattern: '^-?(0|[1-9][0-9]*)(\\.[0-9]{1,6})?$', description });

/** Page size of a cursor list: 1 to `max`, `default` when absent. */
export const LimitParam = (opts: { default: number; max: number }) =>
  Type.Integer({ minimum: 1, maximum: opts.max, description: `Page size, 1 to ${opts.max}, default ${opts.default}` });

/** The `cursor` query parameter: the `next_cursor` of the previous page. */
/**
 * One line of text: no C0 control character (CR, LF, tab, NUL, ...) and no DEL. For identifiers and
 * names that end up in message headers and lines (e-mail subjects, chat cards).
 */
export const SINGLE_LINE = '^[^\\u0000-\\u001f\\u007f]*$';

export const CursorParam = Type.String({ minLength: 1, maxLength: 512, description: 'next_cursor of the previous page' });

/** The members every cursor page carries beside its list (concepts.md, cursor pagination envelope). */
export const PageMembers = {
  next_cursor: Nullable(Type.String({ description: 'Cursor of the next page; null on the last page' })),
  has_more: Type.Boolean({ description: 'True when another page follows' }),
};

/** A cursor page: the list under its own name plus `next_cursor` and `has_more`. */
export function Page<K extends string, T extends TSchema>(member: K, item: T, description?: string) {
  return Type.Object(
    { [member]: Type.Array(item), ...PageMembers } as { [P in K]: ReturnType<typeof Type.Array<T>> } & typeof PageMembers,
    description ? { description } : {},
  );
}

/**
 * A main resource: the OpenAPI document lists it once under `components.schemas.<name>` and every
 * use refers to it, so a generated client gets one named type (`Asset`, `ApiKey`, ...). The
 * marker is an annotation: validation and serialisation ignore it.
 */
export function Component<T extends TSchema>(name: string, schema: T): T {
  return Object.assign(Object.create(Object.getPrototypeOf(schema)), schema, { [COMPONENT]: name }) as T;
}

/** The annotation `Component` sets. */
export const COMPONENT = 'x-component';

/** Marks a declared response as the platform's error answer: openapi.ts documents it as the error renderer's `Error` (or the envelope). */
export const PLATFORM_ERROR = 'x-platform-error';

/**
 * The one error-response schema an operation declares for an error status it answers (decision
 * 0355): the error renderer's body passed through as rendered (`detail`, a message, the 422 list or
 * an object, and any members the error carries), documented as the `Error` component (the
 * `ErrorEnvelope` and `Problem` on the envelope surface), as every status the platform adds is.
 */
export const ErrorResponse = Type.Object({ detail: Type.Unknown() }, { additionalProperties: true, [PLATFORM_ERROR]: true });
