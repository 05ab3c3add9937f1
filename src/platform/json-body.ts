// JSON body parsing: Fastify's own parser (prototype-poisoning keys refused), behind a strict
// UTF-8 decode (invalid bytes are refused, never silently turned into U+FFFD) and a nesting depth
// cap so a hostile body cannot exhaust the stack in validation or error rendering. Unpaired
// surrogates written as \ud800 escapes are valid JSON text; the platform refuses them after parsing
// (text-guard.ts), with the value's location.
//
// A `text/csv` body is taken only by an operation that declares `csvBody` (the spec's CSV imports):
// the text becomes the member it names, so the body schema, the text guard and the handler see the
// same thing as in the JSON form. Elsewhere it is the same 415 as any other media type.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import { AppError, errors } from './errors.ts';
import { bodyIsOptional, type Operation } from './operation.ts';

export const MAX_JSON_DEPTH = 64;

/** Deepest bracket nesting outside strings; stops counting once past `limit`. */
export function jsonDepthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      // A string: jump to its closing quote, the first one after an even run of backslashes
      // (indexOf instead of a character at a time; most of a body's text is inside strings).
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return false; // unterminated: no bracket after it counts
        let k = j - 1;
        while (text.charCodeAt(k) === 92) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON that did not reach a route, as HTTP's body parser takes it (device MQTT payloads): the bytes
 * as UTF-8, nesting at most MAX_JSON_DEPTH, no prototype-poisoning key (`__proto__`,
 * `constructor.prototype`: the rule Fastify's parser applies, secure-json-parse). The value, or why not.
 */
export function parseJsonBytes(bytes: Uint8Array): { ok: true; value: unknown } | { ok: false; reason: string } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { ok: false, reason: 'not UTF-8' };
  }
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return { ok: false, reason: `JSON nested deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { ok: true, value: sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }) };
  } catch (e) {
    // secure-json-parse's own refusal is a SyntaxError too: told apart by its words.
    const poisoned = e instanceof Error && /forbidden (prototype|constructor) property/.test(e.message);
    return { ok: false, reason: poisoned ? 'JSON with a __proto__ or constructor.prototype key' : 'not JSON' };
  }
}

/** The body as text, or the 422 when its bytes are not UTF-8 (never silently replaced). */
function decodeUtf8(body: Buffer, type: string): string | AppError {
  try {
    return utf8.decode(body);
  } catch {
    return errors.validation([{ type, loc: ['body'], msg: 'Body is not valid UTF-8', input: null }]);
  }
}

export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const text = decodeUtf8(body as Buffer, 'json_invalid');
    if (text instanceof AppError) {
      done(text, undefined);
      return;
    }
    // No body under a JSON content type (clients send the header on a DELETE too): no body at all.
    // An operation that needs one still answers that it is missing; one whose body is optional
    // takes it as absent (register.ts gives the handler `{}`).
    if (text.trim() === '') {
      const op = (req.routeOptions?.config as { op?: Operation } | undefined)?.op;
      if (req.routeOptions?.schema?.body && !(op && bodyIsOptional(op)))
        done(errors.validation([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]), undefined);
      else done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(
        new AppError(422, [{ type: 'json_invalid', loc: ['body'], msg: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, input: null }], {
          code: 'validation_error',
          message: 'Request validation failed',
        }),
        undefined,
      );
      return;
    }
    parse(req, text, done);
  });
}

/** `text/csv` for the operations that declare `csvBody`; the route's body limit bounds it. */
export function registerCsvParser(app: FastifyInstance): void {
  app.addContentTypeParser('text/csv', { parseAs: 'buffer' }, (req: FastifyRequest, body, done) => {
    const member = req.routeOptions?.config?.op?.csvBody?.member;
    if (!member) {
      done(errors.unsupportedMediaType(String(req.headers['content-type'] ?? '')), undefined);
      return;
    }
    const text = decodeUtf8(body as Buffer, 'string_unicode');
    if (text instanceof AppError) done(text, undefined);
    else done(null, { [member]: text });
  });
}
