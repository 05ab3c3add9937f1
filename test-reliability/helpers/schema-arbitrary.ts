// fast-check arbitraries from the JSON Schemas in the served OpenAPI document: valid values, and
// the hostile variants contract fuzzing sends (missing, wrong-typed, oversized, unicode, injection).
import fc from 'fast-check';

export type Schema = Record<string, any>;

const INJECTION = [
  "' OR '1'='1",
  '"; DROP TABLE organisations; --',
  '<script>alert(1)</script>',
  '../../../../etc/passwd',
  '${jndi:ldap://127.0.0.1/a}',
  '{{7*7}}',
  '\u0000',
  '%00%0d%0a',
  'x'.repeat(10_000),
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ✓ 🔋 Ω',
  '\ud800',
  '-1',
  '1e309',
  'NaN',
  '',
  ' ',
];

export const hostileString = fc.oneof(fc.constantFrom(...INJECTION), fc.string({ unit: 'grapheme', maxLength: 40 }), fc.string({ maxLength: 400 }));

const FORMAT_SAMPLES: Record<string, fc.Arbitrary<string>> = {
  email: fc.constantFrom('ops@acme.example', 'a.b+c@example.org'),
  'date-time': fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString()),
  date: fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)),
  uri: fc.constantFrom('https://hooks.example.com/in', 'http://127.0.0.1:9/x'),
  uuid: fc.uuid(),
};

/** A value the schema accepts (best effort: patterns are not generated). */
export function valid(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(null);
  if ('const' in schema) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => valid(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'string': {
      if (schema.format && FORMAT_SAMPLES[schema.format]) return FORMAT_SAMPLES[schema.format];
      const min = schema.minLength ?? 0;
      const max = Math.max(min, Math.min(schema.maxLength ?? 24, 64));
      return fc.string({ minLength: Math.max(min, 1), maxLength: Math.max(max, 1) });
    }
    case 'integer':
      return fc.integer({
        min: schema.minimum ?? (schema.exclusiveMinimum ?? -1000) + (schema.exclusiveMinimum !== undefined ? 1 : 0),
        max: schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 100_000),
      });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      // A handful of items, never fewer than the schema's minimum (a batch may require 48 half hours).
      const minLength = schema.minItems ?? 0;
      return fc.array(valid(schema.items, depth + 1), { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 5)) });
    }
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const required: string[] = schema.required ?? [];
      const entries: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, s] of Object.entries(props)) entries[k] = valid(s, depth + 1);
      return fc.record(entries, { requiredKeys: required.filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A value of the wrong type for the schema. */
export function wrongTyped(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const type = Array.isArray(schema?.type) ? schema!.type[0] : schema?.type;
  const others: unknown[] = [123, -1.5, true, null, 'text', [], {}, [1, 'a'], { nested: { deep: true } }];
  return fc.constantFrom(...others.filter((v) => typeOfJson(v) !== type));
}

function typeOfJson(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Body variants: valid, one field missing, one field wrong-typed, one field hostile, extra fields. */
export function bodyVariants(schema: Schema | undefined): fc.Arbitrary<unknown> {
  if (!schema) return fc.oneof(fc.constant(undefined), fc.jsonValue({ maxDepth: 2 }));
  const base = valid(schema);
  const props = Object.keys(schema.properties ?? {});
  const variants: fc.Arbitrary<unknown>[] = [base, fc.jsonValue({ maxDepth: 3 }), wrongTyped(schema)];
  if (props.length) {
    const pick = fc.constantFrom(...props);
    variants.push(
      fc.tuple(base, pick).map(([v, k]) => {
        if (v && typeof v === 'object') delete (v as Record<string, unknown>)[k];
        return v;
      }),
      fc
        .tuple(base, pick, fc.constant(null))
        .chain(([v, k]) => wrongTyped(schema.properties[k]).map((w) => (v && typeof v === 'object' ? { ...(v as object), [k]: w } : v))),
      fc.tuple(base, pick, hostileString).map(([v, k, h]) => (v && typeof v === 'object' ? { ...(v as object), [k]: h } : v)),
      base.map((v) => (v && typeof v === 'object' ? { ...(v as object), org_id: 'someone-else', roles: ['ORG_ADMIN'], id: 'forced', __proto__x: 1 } : v)),
    );
  }
  return fc.oneof(...variants);
}

/** A value for a query, path or header parameter: valid, hostile or wrong. */
export function paramVariants(schema: Schema | undefined): fc.Arbitrary<string> {
  return fc.oneof(
    valid(schema).map((v) => (v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v))),
    hostileString,
    fc.constantFrom('0', '-1', '999999999999', 'true', '2026-13-45T99:00:00Z'),
  );
}
