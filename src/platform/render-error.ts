// The one place errors become HTTP answers, in the shape of the surface they belong to
// (concepts.md section 7): `{detail}` everywhere; on the envelope surface (platform/surface.ts) the envelope with
// `error{code,message,request_id}` and the RFC 9457 members; problem+json on request.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, STATUS_TITLES, type FieldError } from './errors.ts';

const SENSITIVE = /pass(word)?|secret|token|api_?key|authorization/i;

/** Field errors echo what was sent, but never a secret and never a huge value. */
function safeInput(fe: FieldError): FieldError {
  if (fe.loc.some((s) => typeof s === 'string' && SENSITIVE.test(s))) return { ...fe, input: '[redacted]' };
  let json: string;
  try {
    json = JSON.stringify(fe.input) ?? '';
  } catch {
    return { ...fe, input: '[too large to echo]' };
  }
  if (json.length > 512) {
    return { ...fe, input: typeof fe.input === 'string' ? fe.input.slice(0, 256) + '…' : '[too large to echo]' };
  }
  return fe;
}

export interface RenderOptions {
  /** The envelope surface (platform/surface.ts), else `{detail}`. */
  envelope: boolean;
  docsOrigin: string;
}

export function renderError(err: AppError, req: FastifyRequest, reply: FastifyReply, opts: RenderOptions): void {
  let detail = err.detail;
  if (err.status === 422 && Array.isArray(detail)) detail = (detail as FieldError[]).map(safeInput);
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  // RFC 9110 §15.5.2: a 401 says how to authenticate; RFC 6750 §3: with a credential that was sent
  // and refused, error="invalid_token" (never more: the detail says what, the header only how).
  if (err.status === 401 && !reply.hasHeader('www-authenticate')) {
    reply.header('WWW-Authenticate', `Bearer realm="energy-platform"${req.headers.authorization ? ', error="invalid_token"' : ''}`);
  }
  reply.code(err.status);
  if (!opts.envelope) {
    reply.type('application/json; charset=utf-8').send({ ...err.members, detail });
    return;
  }
  const requestId = String(req.id);
  const message = err.message;
  const accept = String(req.headers.accept ?? '');
  const problem = /application\/problem\+json/i.test(accept);
  const base = {
    type: `${opts.docsOrigin}/docs/errors#${err.code}`,
    title: STATUS_TITLES[err.status] ?? 'Error',
    status: err.status,
    instance: req.url.split('?')[0],
    code: err.code,
    request_id: requestId,
    error: { code: err.code, message, request_id: requestId },
  };
  if (problem) {
    const body: Record<string, unknown> = {
      ...err.members,
      ...base,
      detail: typeof detail === 'string' ? detail : message,
      ...err.extra,
    };
    if (Array.isArray(detail)) body.errors = detail;
    else if (detail && typeof detail === 'object') Object.assign(body, { errors: [detail] });
    reply.type('application/problem+json; charset=utf-8').send(body);
    return;
  }
  reply.type('application/json; charset=utf-8').send({ ...err.members, detail, ...base, ...err.extra });
}
