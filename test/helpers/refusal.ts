// A refusal as a client sees it: the status and what the body says. Outside /api/devtools/ the
// body is `{detail}` with the spec's exact words (concepts.md section 7); a validation failure (422)
// is the list of field errors; under /api/devtools/ the envelope adds a stable `code` (also in
// `error.code`, with the request id of the X-Request-Id header). A test that checks only the
// status would pass whatever the service said.
import assert from 'node:assert/strict';

/** An inject response, or a test's own `{status, detail}` / `{status, body}` summary of one. */
export interface Answered {
  statusCode?: number;
  status?: number;
  body?: unknown;
  detail?: unknown;
  headers?: Record<string, unknown>;
}

export type Expected =
  /** The exact `detail` (a string or, as for SSO refusals and plan limits, an object). */
  | string
  /** A `detail` string of this form (one that carries ids or counts). */
  | RegExp
  | {
      detail?: unknown;
      /** Under /api/devtools/: the envelope's stable code. */
      code?: string;
      /** 422: the field errors name these locations (`loc` joined with '.', e.g. 'query.limit'). */
      fields?: string[];
    };

function read(res: Answered): { status: number | undefined; body: any; headers: Record<string, unknown> } {
  const status = res.statusCode ?? res.status;
  let body: any;
  if (typeof res.body === 'string') body = res.body === '' ? undefined : JSON.parse(res.body);
  else if (res.body !== undefined) body = res.body;
  else body = { detail: res.detail };
  return { status, body, headers: res.headers ?? {} };
}

function checkDetail(actual: unknown, expected: unknown, where: string) {
  if (expected instanceof RegExp) assert.match(String(actual), expected, where);
  else assert.deepEqual(actual, expected, where);
}

export function assertRefused(res: Answered, status: number, expected: Expected, message?: string): void {
  const { status: got, body, headers } = read(res);
  const where = message ? `${message}: ` : '';
  assert.equal(got, status, `${where}status (body: ${JSON.stringify(body)})`);
  assert.ok(body && typeof body === 'object', `${where}a JSON body`);
  const want = typeof expected === 'string' || expected instanceof RegExp ? { detail: expected } : expected;
  if (want.detail !== undefined) checkDetail(body.detail, want.detail, `${where}detail`);
  if (want.code !== undefined) {
    assert.equal(body.code, want.code, `${where}code`);
    assert.equal(body.error?.code, want.code, `${where}error.code`);
    assert.equal(body.status, status, `${where}status member`);
    if (headers['x-request-id'] !== undefined) assert.equal(body.error.request_id, headers['x-request-id'], `${where}error.request_id`);
  }
  if (want.fields !== undefined) {
    const list = body.errors ?? body.detail;
    assert.ok(Array.isArray(list), `${where}a list of field errors`);
    const named = (list as { loc: (string | number)[] }[]).map((e) => e.loc.join('.'));
    for (const f of want.fields) assert.ok(named.includes(f), `${where}a field error at ${f} (got ${named.join(', ')})`);
  }
}
