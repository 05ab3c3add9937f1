// OCPP message types from the official JSON schemas (the ones ocpp-rpc validates every call against
// in strict mode): one `<Action>Request` and `<Action>Response` per action and version, written to
// ./generated/v16.ts and ./generated/v201.ts. `npm run ocpp-types` writes them; the drift test
// (test/hub/ocpp-types.test.ts) regenerates them in memory and fails while they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { compile, type JSONSchema } from 'json-schema-to-typescript';

const require = createRequire(import.meta.url);

export const OCPP_SCHEMA_SETS = [
  { file: 'v16.ts', schemas: 'ocpp-rpc/lib/schemas/ocpp1_6.json', version: 'OCPP 1.6J' },
  { file: 'v201.ts', schemas: 'ocpp-rpc/lib/schemas/ocpp2_0_1.json', version: 'OCPP 2.0.1' },
] as const;

export const GENERATED_DIR = new URL('./generated/', import.meta.url);

interface ActionSchema {
  $id: string;
  definitions?: Record<string, JSONSchema>;
  [k: string]: unknown;
}

/** `urn:BootNotification.req` -> BootNotificationRequest; `.conf` -> BootNotificationResponse. */
function typeName(id: string): { action: string; name: string } {
  const m = /^urn:([A-Za-z0-9]+)\.(req|conf)$/.exec(id);
  if (!m) throw new Error(`Unexpected schema id ${id}`);
  return { action: m[1], name: `${m[1]}${m[2] === 'req' ? 'Request' : 'Response'}` };
}

/** Drops the properties json-schema-to-typescript would read as names (the types are named here). */
function unnamed(schema: JSONSchema): JSONSchema {
  const { $id: _id, $schema: _s, title: _t, javaType: _j, definitions: _d, ...rest } = schema as JSONSchema & { javaType?: unknown };
  return rest;
}

/**
 * Names once each object type that the schemas write out inline, alike, in more than one place (the
 * 1.6 schemas repeat IdTagInfo, MeterValue, ChargingProfile and ChargingSchedule in every action
 * that carries them; the 2.0.1 ones name theirs in `definitions`): it becomes a definition named
 * after the property that holds it (the first in alphabetical order: `meterValue` -> MeterValue)
 * and each place refers to it. The largest first, so what only repeats inside it stays inline.
 */
function nameRepeatedObjects(definitions: Record<string, JSONSchema>): void {
  for (;;) {
    const places = new Map<string, { properties: string[]; refer: ((ref: JSONSchema) => void)[] }>();
    const visit = (s: JSONSchema, property: string | undefined, refer: ((ref: JSONSchema) => void) | undefined) => {
      if (refer && property && s.type === 'object' && s.properties) {
        const key = JSON.stringify(s);
        const p = places.get(key) ?? { properties: [], refer: [] };
        p.properties.push(property);
        p.refer.push(refer);
        places.set(key, p);
      }
      for (const [name, child] of Object.entries(s.properties ?? {})) visit(child, name, (ref) => (s.properties![name] = ref));
      const items = s.items;
      if (items && !Array.isArray(items)) visit(items, property, (ref) => (s.items = ref));
    };
    for (const d of Object.values(definitions)) visit(d, undefined, undefined);
    const repeated = [...places].filter(([, p]) => p.refer.length > 1).sort(([a], [b]) => b.length - a.length)[0];
    if (!repeated) return;
    const [key, { properties, refer }] = repeated;
    const property = properties.sort()[0];
    const name = property[0].toUpperCase() + property.slice(1);
    if (definitions[name]) throw new Error(`${name}, a repeated inline object, is already a definition`);
    definitions[name] = { ...unnamed(JSON.parse(key) as JSONSchema), title: name };
    for (const r of refer) r({ $ref: `#/definitions/${name}` });
  }
}

/**
 * One version's schemas as one TypeScript module. The 2.0.1 schemas repeat their shared definitions
 * (CustomDataType, IdTokenType, ...) in every file; they are merged into one set (the same name is
 * the same type, as the specification defines it once), so each is declared once.
 */
export async function generateOcppTypes(schemasModule: string, version: string): Promise<string> {
  const list = JSON.parse(readFileSync(require.resolve(schemasModule), 'utf8')) as ActionSchema[];
  const definitions: Record<string, JSONSchema> = {};
  const actions = new Map<string, { request?: string; response?: string }>();
  for (const s of list) {
    for (const [name, d] of Object.entries(s.definitions ?? {})) definitions[name] ??= { ...unnamed(d), title: name };
    const { action, name } = typeName(s.$id);
    definitions[name] = { ...unnamed(s as JSONSchema), title: name };
    const a = actions.get(action) ?? {};
    if (name.endsWith('Request')) a.request = name;
    else a.response = name;
    actions.set(action, a);
  }
  nameRepeatedObjects(definitions);
  const sorted = Object.fromEntries(Object.entries(definitions).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const names = [...actions.keys()].sort();
  const body = await compile({ title: 'OcppSchemas', type: 'object', additionalProperties: false, definitions: sorted }, 'OcppSchemas', {
    bannerComment: '',
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    additionalProperties: false,
    strictIndexSignatures: false,
    format: true,
    style: { singleQuote: true, printWidth: 160 },
  });
  const withoutRoot = body.replace(/export interface OcppSchemas \{\}\n?/, '');
  const table = names.map((n) => `  ${n}: { request: ${actions.get(n)!.request}; response: ${actions.get(n)!.response} };`).join('\n');
  return [
    `// Generated from the official ${version} JSON schemas (${schemasModule}) by`,
    '// src/modules/hub/ocpp/generate-types.ts: do not edit; run `npm run ocpp-types`.',
    '',
    withoutRoot.trim(),
    '',
    `/** Every ${version} action with its request and response. */`,
    'export interface Actions {',
    table,
    '}',
    '',
  ].join('\n');
}

/** Every generated file and its fresh text. */
export async function ocppTypeFiles(): Promise<{ url: URL; text: string }[]> {
  return Promise.all(OCPP_SCHEMA_SETS.map(async (s) => ({ url: new URL(s.file, GENERATED_DIR), text: await generateOcppTypes(s.schemas, s.version) })));
}

if (import.meta.main) {
  for (const f of await ocppTypeFiles()) writeFileSync(f.url, f.text);
}
