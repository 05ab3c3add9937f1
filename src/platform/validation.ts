// Request validation: strict for bodies, type-coercing for query, path and headers (they arrive as
// text). Failures become the spec's 422 list of {type, loc, msg, input}.
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FieldError } from './errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

type FormatDef = { validate: (s: string) => boolean; compare: (a: string, b: string) => number | undefined };
const rfcDate = fullFormats.date as FormatDef;
const rfcDateTime = fullFormats['date-time'] as FormatDef;
/**
 * RFC 3339 as ajv-formats reads it, narrowed to what the stores and `Date` hold: PostgreSQL has no
 * year 0 (1 BC follows AD 1), and `Date` cannot hold a leap second (23:59:60). Either passed the
 * plain format and then failed in the store as a 500; here they are the field's 422 (decision 0259).
 */
const storableDate = (s: string) => rfcDate.validate(s) && !s.startsWith('0000');
const storableDateTime = (s: string) => {
  if (!rfcDateTime.validate(s)) return false;
  const t = Date.parse(s);
  return Number.isFinite(t) && new Date(t).getUTCFullYear() >= 1;
};

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
    // Errors carry the schema that failed: an anyOf of constants names its allowed values.
    verbose: true,
  });
  addFormats(ajv);
  ajv.addFormat('date', { type: 'string', validate: storableDate, compare: rfcDate.compare });
  ajv.addFormat('date-time', { type: 'string', validate: storableDateTime, compare: rfcDateTime.compare });
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string }) {
  return (httpPart === 'body' ? strictAjv : coercingAjv).compile(schema);
}

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

function pointerValue(root: unknown, path: (string | number)[]): unknown {
  let v: unknown = root;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string | number, unknown>)[seg];
  }
  return v;
}

function parsePointer(p: string): (string | number)[] {
  if (!p) return [];
  return p
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

const TYPE_NAMES: Record<string, string> = {
  string: 'string',
  number: 'number',
  integer: 'int',
  boolean: 'bool',
  object: 'dict',
  array: 'list',
  null: 'none',
};

/** The keywords that bound a value, each with its error type and its sentence naming the bound. */
const BOUNDS = new Map<string, { type: string; msg: (p: Record<string, unknown>) => string }>(
  Object.entries({
    minLength: { type: 'string_too_short', msg: (p) => `String should have at least ${p.limit} characters` },
    maxLength: { type: 'string_too_long', msg: (p) => `String should have at most ${p.limit} characters` },
    pattern: { type: 'string_pattern_mismatch', msg: (p) => `String should match pattern '${p.pattern}'` },
    minimum: { type: 'greater_than_equal', msg: (p) => `Input should be greater than or equal to ${p.limit}` },
    exclusiveMinimum: { type: 'greater_than', msg: (p) => `Input should be greater than ${p.limit}` },
    maximum: { type: 'less_than_equal', msg: (p) => `Input should be less than or equal to ${p.limit}` },
    exclusiveMaximum: { type: 'less_than', msg: (p) => `Input should be less than ${p.limit}` },
    minItems: { type: 'too_short', msg: (p) => `List should have at least ${p.limit} items` },
    maxItems: { type: 'too_long', msg: (p) => `List should have at most ${p.limit} items` },
  }),
);

/** Converts ajv errors for one request part into the spec's field errors. */
export function toFieldErrors(errs: ErrorObject[], part: string, data: unknown): FieldError[] {
  const partName = PART_NAMES[part] ?? part;
  // An anyOf failure reports every branch too; keep only the anyOf itself.
  const unions = errs.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const kept = errs.filter(
    (e) =>
      e.keyword === 'anyOf' ||
      e.keyword === 'oneOf' ||
      !unions.some((u) => e.schemaPath.startsWith(u.schemaPath + '/') && e.instancePath.startsWith(u.instancePath)),
  );
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const e of kept) {
    const path = parsePointer(e.instancePath);
    const input = pointerValue(data, path);
    const p = e.params as Record<string, unknown>;
    let fe: FieldError;
    const bound = BOUNDS.get(e.keyword);
    if (bound) fe = { type: bound.type, loc: [partName, ...path], msg: bound.msg(p), input };
    else
      switch (e.keyword) {
        case 'required':
          fe = { type: 'missing', loc: [partName, ...path, String(p.missingProperty)], msg: 'Field required', input: input ?? null };
          break;
        case 'additionalProperties':
          fe = {
            type: 'extra_forbidden',
            loc: [partName, ...path, String(p.additionalProperty)],
            msg: 'Extra inputs are not permitted',
            input: pointerValue(input, [String(p.additionalProperty)]),
          };
          break;
        case 'type': {
          const t = String(p.type).split(',')[0];
          fe = { type: `${TYPE_NAMES[t] ?? t}_type`, loc: [partName, ...path], msg: `Input should be a valid ${t}`, input: input ?? null };
          break;
        }
        case 'enum':
        case 'const': {
          const allowed = (p.allowedValues as unknown[]) ?? [p.allowedValue];
          fe = { type: 'enum', loc: [partName, ...path], msg: `Input should be ${allowed.map((a) => JSON.stringify(a)).join(', ')}`, input: input ?? null };
          break;
        }
        case 'anyOf':
        case 'oneOf': {
          const branches = (e.schema as { const?: unknown }[] | undefined) ?? [];
          const consts = branches.length > 0 && branches.every((b) => b && 'const' in b) ? branches.map((b) => b.const) : null;
          fe = consts
            ? { type: 'enum', loc: [partName, ...path], msg: `Input should be ${consts.map((c) => JSON.stringify(c)).join(', ')}`, input: input ?? null }
            : { type: 'union_error', loc: [partName, ...path], msg: 'Input does not match any allowed form', input: input ?? null };
          break;
        }
        case 'format':
          fe = { type: 'value_error', loc: [partName, ...path], msg: `Input should be a valid ${p.format}`, input: input ?? null };
          break;
        default:
          fe = { type: 'value_error', loc: [partName, ...path], msg: e.message ?? 'Invalid value', input: input ?? null };
      }
    if (fe.input === undefined) fe.input = null;
    const k = JSON.stringify([fe.type, fe.loc]);
    if (!seen.has(k)) {
      seen.add(k);
      out.push(fe);
    }
  }
  return out;
}
