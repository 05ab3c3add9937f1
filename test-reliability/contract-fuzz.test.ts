// T-13/T-14: contract fuzzing of every operation in the served OpenAPI document. For each
// operation, requests with valid, missing, wrong-typed, oversized, unicode, injection-shaped and
// malformed-JSON inputs, with a role that may call it. Pass: no 500, every error in its surface's
// shape, every declared success answer valid against its own schema. New operations are picked
// up from the document automatically.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startTestService, json, type TestService } from '../test/helpers/service.ts';
import { bodyVariants, paramVariants, valid, type Schema } from './helpers/schema-arbitrary.ts';
import { fuzzEnv, prepareCredentials, type Credentials } from './helpers/world.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 1);

let svc: TestService;
let doc: any;
let creds: Credentials;
const ajv = new Ajv({ strict: false, allErrors: false });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);

before(async () => {
  svc = await startTestService({ env: fuzzEnv() });
  doc = json(await svc.request({ method: 'GET', url: '/openapi.json' }));
  ajv.addSchema({ $id: 'doc', components: doc.components }, 'doc');
  creds = await prepareCredentials(svc, doc);
});
after(() => svc?.stop());

function resolveRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(resolveRefs);
  if (schema && typeof schema === 'object') {
    const o = schema as Record<string, unknown>;
    if (typeof o.$ref === 'string' && o.$ref.startsWith('#/components/schemas/')) {
      return resolveRefs(doc.components.schemas[o.$ref.split('/').pop()!]);
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, resolveRefs(v)]));
  }
  return schema;
}

const validators = new Map<string, ReturnType<Ajv['compile']>>();
function validatorFor(key: string, schema: unknown) {
  let v = validators.get(key);
  if (!v) {
    v = ajv.compile(resolveRefs(schema) as object);
    validators.set(key, v);
  }
  return v;
}

interface Spec {
  pathValues: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  malformed: boolean;
  problem: boolean;
}

function specArbitrary(op: any): fc.Arbitrary<Spec> {
  const params: any[] = op.parameters ?? [];
  const pathArbs: Record<string, fc.Arbitrary<string>> = {};
  const queryArbs: Record<string, fc.Arbitrary<string>> = {};
  for (const p of params) {
    if (p.in === 'path') pathArbs[p.name] = fc.oneof(paramVariants(p.schema), fc.constantFrom('x1', '00000000-0000-0000-0000-000000000000'));
    if (p.in === 'query') queryArbs[p.name] = paramVariants(p.schema);
  }
  const bodySchema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
  return fc.record({
    pathValues: fc.record(pathArbs),
    query: fc.record(queryArbs, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>,
    body: bodySchema ? bodyVariants(bodySchema) : fc.constant(undefined),
    // About one body in seven is malformed JSON; drawn by fast-check, so the run's seed replays it.
    malformed: fc.integer({ min: 0, max: 99 }).map((n) => n < 15 && !!bodySchema),
    problem: fc.boolean(),
  });
}

/** Percent-encodes; a lone surrogate becomes an invalid UTF-8 sequence, itself a hostile input. */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

// T-20: no answer carries secret material, except the one-time secret of a create or rotate.
const FORBIDDEN_KEYS = /^(password|password_hash|secret_hash|key_hash|token_hash|refresh_token_hash|signing_secret_encrypted)$/i;
const ONE_TIME: [RegExp, string[]][] = [
  [/^[a-z][a-z0-9]*_(live|sandbox)_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/, ['createApiKey', 'rotateApiKey']],
  [/^whsec_/, ['createWebhookEndpoint', 'rotateWebhookSecret']],
];
const ISSUES_TOKENS = new Set(['login', 'refreshToken', 'exchangeSsoToken', 'acceptInvitation', 'createInvitation']);

function secretLeak(body: unknown, operationId: string, path = '$'): string | null {
  if (typeof body === 'string') {
    for (const [re, allowed] of ONE_TIME) if (re.test(body) && !allowed.includes(operationId)) return `secret-like value at ${path}`;
    return null;
  }
  if (body === null || typeof body !== 'object') return null;
  for (const [k, v] of Object.entries(body)) {
    if (FORBIDDEN_KEYS.test(k)) return `forbidden member ${path}.${k}`;
    if (k === 'refresh_token' && !ISSUES_TOKENS.has(operationId)) return `refresh token at ${path}.${k}`;
    const hit = secretLeak(v, operationId, `${path}.${k}`);
    if (hit) return hit;
  }
  return null;
}

function checkShape(path: string, status: number, headers: Record<string, unknown>, body: any, problem: boolean): string | null {
  if (!body || typeof body !== 'object') return 'error body is not JSON';
  if (path.startsWith('/api/devtools/')) {
    if (!headers['x-request-id']) return 'devtools answer without X-Request-Id';
    if (body.status !== status) return `envelope status ${body.status} != ${status}`;
    if (!body.error?.code || !body.error?.request_id) return 'envelope without error{code,request_id}';
    if (problem) {
      if (!String(headers['content-type']).startsWith('application/problem+json')) return 'problem+json not honoured';
      if (typeof body.detail !== 'string') return 'problem+json detail is not a string';
    }
    return null;
  }
  if (!('detail' in body)) return 'error without detail';
  if (status === 422 && Array.isArray(body.detail)) {
    for (const e of body.detail) if (!('type' in e && 'loc' in e && 'msg' in e && 'input' in e)) return '422 entry without type/loc/msg/input';
  }
  return null;
}

test('contract fuzzing of every served operation', async () => {
  const failures: string[] = [];
  let requests = 0;
  let operations = 0;
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      operations++;
      // An event stream never ends on its own: test/console/console.test.ts reads it through a real socket.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      const samples = fc.sample(specArbitrary(op), { numRuns: RUNS, seed: SEED + operations });
      let opFailures = 0;
      for (const s of samples) {
        const url =
          path.replace(/\{([^}]+)\}/g, (_, name) => enc(s.pathValues[name] || 'x1')) +
          (Object.keys(s.query).length ? '?' + new URLSearchParams(s.query).toString() : '');
        const headers: Record<string, string> = { ...creds.headersFor(op) };
        if (s.problem) headers.accept = 'application/problem+json';
        let payload: string | undefined;
        if (s.body !== undefined || s.malformed) {
          headers['content-type'] = 'application/json';
          payload = s.malformed ? '{"broken": [1, 2' : JSON.stringify(s.body);
        }
        const res = await svc.request({ method: method.toUpperCase(), url, headers, payload });
        requests++;
        const where = `${method.toUpperCase()} ${path} -> ${res.statusCode}`;
        let problem: string | null = null;
        if (res.statusCode >= 500 && ![502, 503].includes(res.statusCode)) problem = `server error: ${res.body.slice(0, 200)}`;
        else if (res.statusCode >= 400) {
          let body: unknown;
          try {
            body = JSON.parse(res.body);
          } catch {
            problem = `error body not JSON: ${res.body.slice(0, 100)}`;
          }
          problem ??= checkShape(path, res.statusCode, res.headers, body, s.problem);
        } else {
          const declared = op.responses?.[String(res.statusCode)]?.content?.['application/json']?.schema;
          if (declared && String(res.headers['content-type']).includes('json')) {
            const v = validatorFor(`${method} ${path} ${res.statusCode}`, declared);
            const parsed = JSON.parse(res.body);
            if (!v(parsed)) problem = `response fails its schema: ${ajv.errorsText(v.errors).slice(0, 200)}`;
            problem ??= secretLeak(parsed, op.operationId);
          } else if (!op.responses?.[String(res.statusCode)]) {
            problem = `undeclared success status ${res.statusCode}`;
          }
        }
        if (problem && opFailures < 3) {
          opFailures++;
          failures.push(`${where}: ${problem}\n    request: ${url.slice(0, 200)} ${payload?.slice(0, 200) ?? ''}`);
        }
      }
    }
  }
  console.log(`contract fuzzing: ${operations} operations, ${requests} requests, ${failures.length} failures (seed ${SEED}, ${RUNS} runs each)`);
  assert.deepEqual(failures, [], failures.join('\n'));
});

// T-33 (ill-formed text): a lone surrogate, high or low, in one string or key of an otherwise valid
// body (at any depth), and as invalid UTF-8 percent-encoding in each query parameter. Pass: 4xx in
// the surface's shape for every operation; never a success, never a 5xx.
const LONE = ['\ud800', '\udbff', '\udc00', '\udfff'];

/** Every place in `v` a lone surrogate can go: string values and object keys, with a setter. */
function slots(v: unknown, put: (x: unknown) => void, out: ((lone: string) => void)[] = [], depth = 0): ((lone: string) => void)[] {
  if (typeof v === 'string') out.push((lone) => put(v.slice(0, 1) + lone + v.slice(1)));
  else if (v && typeof v === 'object' && depth < 8) {
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      slots(o[k], (x) => (o[k] = x), out, depth + 1);
      if (!Array.isArray(o)) {
        out.push((lone) => {
          o[k + lone] = o[k];
          delete o[k];
        });
      }
    }
    if (!Array.isArray(o)) out.push((lone) => (o[`extra${lone}`] = 'x'));
  }
  return out;
}

test('lone surrogates in bodies (values and keys, any depth) and query parameters of every operation: 4xx in shape', async () => {
  const failures: string[] = [];
  let requests = 0;
  let operations = 0;
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(methods)) {
      operations++;
      // An event stream never ends on its own: test/console/console.test.ts reads it through a real socket.
      if (op.responses?.['200']?.content?.['text/event-stream']) continue;
      const url = path.replace(/\{[^}]+\}/g, 'x1');
      const attempts: { url: string; payload?: string }[] = [];
      const bodySchema = op.requestBody?.content?.['application/json']?.schema as Schema | undefined;
      if (bodySchema) {
        const bodies = fc.sample(valid(resolveRefs(bodySchema) as Schema), { numRuns: 8, seed: SEED + operations });
        bodies.forEach((body, i) => {
          let root: unknown = body;
          const places = slots(root, (x) => (root = x));
          if (places.length === 0) return;
          places[(i * 7919) % places.length](LONE[i % LONE.length]);
          attempts.push({ url, payload: JSON.stringify(root) });
        });
      }
      for (const p of op.parameters ?? []) {
        if (p.in === 'query')
          attempts.push({ url: `${url}?${encodeURIComponent(p.name)}=%ED%A0%80` }, { url: `${url}?${encodeURIComponent(p.name)}=a%ED%B0%80` });
      }
      for (const a of attempts) {
        const headers: Record<string, string> = { ...creds.headersFor(op), ...(a.payload !== undefined && { 'content-type': 'application/json' }) };
        const res = await svc.request({ method: method.toUpperCase(), url: a.url, headers, payload: a.payload });
        requests++;
        let problem: string | null = null;
        if (res.statusCode < 400 || res.statusCode >= 500) problem = `answered ${res.statusCode}: ${res.body.slice(0, 160)}`;
        else problem = checkShape(path, res.statusCode, res.headers, JSON.parse(res.body), false);
        if (problem) failures.push(`${method.toUpperCase()} ${path}: ${problem}\n    request: ${a.url} ${a.payload?.slice(0, 160) ?? ''}`);
      }
    }
  }
  console.log(`lone surrogates: ${operations} operations, ${requests} requests, ${failures.length} failures`);
  assert.deepEqual(failures, [], failures.join('\n'));
});
