// The OCPP edge's checks of what a stranger sends before and around ocpp-rpc (docs/security.md, "The
// device edge"; decisions 0270-0273, 0277): the upgrade's path and subprotocol header, the HTTP answer
// to a refused upgrade, the CALLERROR as it may leave, and the range of connector and EVSE ids.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import ocppRpc from 'ocpp-rpc';
import { findIllFormedText, isWellFormed } from '../../../kit/text.ts';

const { createRPCError } = ocppRpc;

/** Where chargers connect: `<prefix>/<org_id>/<charge_point_id>`. */
export const OCPP_PATH = '/ocpp';
export const SUBPROTOCOLS = ['ocpp2.0.1', 'ocpp1.6'] as const;
export type OcppVersion = (typeof SUBPROTOCOLS)[number];

/** Longest decoded organisation id or charge point id a path may carry (both are far shorter). */
const MAX_SEGMENT = 128;
/** OCPP-J message ids are at most 36 characters; a CALLERROR never echoes more. */
const MAX_MESSAGE_ID = 36;
/** The longest CALLERROR description the hub sends. */
const MAX_DESCRIPTION = 120;

/** An OCPP-J RPC error (ocpp-rpc's or one made here), as opposed to anything a handler ran into. */
export const isRpcError = (err: unknown): err is Error & { rpcErrorCode: string } => typeof (err as { rpcErrorCode?: unknown })?.rpcErrorCode === 'string';

/** The descriptions of the CALLERRORs the hub makes itself (rpcError's texts, all written in this code): passed on as written. */
const OWN_TEXTS = new Set<string>();

/** An OCPP-J RPC error to throw from a handler: the charger gets it as a CALLERROR (ocpp-rpc types it as a record; it is one of its RPCError classes, an Error). */
export const rpcError = (code: string, message: string): Error => {
  if (OWN_TEXTS.size < 1_000) OWN_TEXTS.add(message);
  return createRPCError(code, message, {}) as unknown as Error;
};

/**
 * The organisation and charge point of an upgrade's target, read as ocpp-rpc reads it (WHATWG URL
 * path, segments percent-decoded): null when the path is not under OCPP_PATH, a reason when it is
 * but cannot name a charger. ocpp-rpc decodes outside its own `try` (issue 35, finding 1), so
 * nothing reaches it that this has not decoded.
 */
export function ocppTarget(url: string | undefined): { orgId: string; cpId: string } | { refused: string } | null {
  let pathname: string;
  try {
    pathname = new URL(`http://localhost${url || '/'}`).pathname;
  } catch {
    return { refused: 'Malformed request target' };
  }
  if (!pathname.startsWith(`${OCPP_PATH}/`)) return null;
  const segments = pathname.slice(OCPP_PATH.length + 1).split('/');
  if (segments.length !== 2) return { refused: `Expected ${OCPP_PATH}/<org_id>/<charge_point_id>` };
  const decoded: string[] = [];
  for (const seg of segments) {
    let d: string;
    try {
      d = decodeURIComponent(seg);
    } catch {
      return { refused: 'Malformed percent-encoding in the path' };
    }
    if (d === '' || d.length > MAX_SEGMENT || d.includes('/') || /[\u0000-\u001f\u007f]/.test(d) || !isWellFormed(d)) {
      return { refused: `Expected ${OCPP_PATH}/<org_id>/<charge_point_id>` };
    }
    decoded.push(d);
  }
  return { orgId: decoded[0], cpId: decoded[1] };
}

/** RFC 6455's Sec-WebSocket-Protocol: tokens separated by commas, none twice (ocpp-rpc answers 500 otherwise). */
export function wellFormedSubprotocols(header: string | string[] | undefined): boolean {
  if (header === undefined) return true;
  if (Array.isArray(header)) return false;
  const seen = new Set<string>();
  for (const p of header.split(',').map((x) => x.trim())) {
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(p) || seen.has(p)) return false;
    seen.add(p);
  }
  return true;
}

/** Ends an upgrade with a plain HTTP answer (the handshake never became a WebSocket). */
export function refuseUpgrade(socket: Socket, code: number, message = STATUS_CODES[code] ?? 'Refused') {
  if (socket.writable) {
    socket.once('finish', () => socket.destroy());
    socket.end(
      `HTTP/1.1 ${code} ${STATUS_CODES[code] ?? 'Refused'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(message)}\r\n\r\n${message}`,
    );
  } else socket.destroy();
}

/**
 * The CALLERROR codes of each version's OCPP-J table (1.6 section 4.2.3, 2.0.1 section 4.3), by the
 * 2.0.1 name. 1.6 keeps two misspellings its errata sheet (section 5) will not fix:
 * FormationViolation and OccurenceConstraintViolation; it has no RpcFrameworkError (a frame that is
 * not an RPC message is a FormationViolation there) nor MessageTypeNotSupported (GenericError).
 * Decision 0435.
 */
const CODES_201 = new Set([
  'FormatViolation',
  'GenericError',
  'InternalError',
  'MessageTypeNotSupported',
  'NotImplemented',
  'NotSupported',
  'OccurrenceConstraintViolation',
  'PropertyConstraintViolation',
  'ProtocolError',
  'RpcFrameworkError',
  'SecurityError',
  'TypeConstraintViolation',
]);
const WIRE_16: Record<string, string> = {
  FormatViolation: 'FormationViolation',
  OccurrenceConstraintViolation: 'OccurenceConstraintViolation',
  RpcFrameworkError: 'FormationViolation',
  MessageTypeNotSupported: 'GenericError',
};
/** Either version's spelling (and ocpp-rpc's, which mixes them) to the 2.0.1 name. */
const CANONICAL: Record<string, string> = { FormationViolation: 'FormatViolation', OccurenceConstraintViolation: 'OccurrenceConstraintViolation' };

/** A CALLERROR code in the version's spelling; a code outside its table is GenericError. */
export function wireCode(code: string, version: OcppVersion): string {
  const c = CANONICAL[code] ?? code;
  if (!CODES_201.has(c)) return 'GenericError';
  return version === 'ocpp1.6' ? (WIRE_16[c] ?? c) : c;
}

/**
 * The code of a schema failure by the JSON Schema keyword that failed (decision 0435), in the terms
 * of the OCPP-J tables: a field of the wrong type is TypeConstraintViolation; a field missing, or
 * present where the schema has none, or a list of the wrong length, OccurrenceConstraintViolation;
 * a value the schema does not allow (enumeration, length, range, pattern, format)
 * PropertyConstraintViolation; a payload that is not a JSON object at all FormatViolation. (ocpp-rpc's
 * own table calls a value out of range or of the wrong length a FormatViolation, an enumeration
 * value outside the list too, and spells OccurrenceConstraintViolation as 1.6 does on every version.)
 */
const BY_KEYWORD: Record<string, string> = {
  type: 'TypeConstraintViolation',
  required: 'OccurrenceConstraintViolation',
  additionalProperties: 'OccurrenceConstraintViolation',
  minItems: 'OccurrenceConstraintViolation',
  maxItems: 'OccurrenceConstraintViolation',
  minProperties: 'OccurrenceConstraintViolation',
  maxProperties: 'OccurrenceConstraintViolation',
  additionalItems: 'OccurrenceConstraintViolation',
  dependencies: 'OccurrenceConstraintViolation',
  enum: 'PropertyConstraintViolation',
  const: 'PropertyConstraintViolation',
  minLength: 'PropertyConstraintViolation',
  maxLength: 'PropertyConstraintViolation',
  minimum: 'PropertyConstraintViolation',
  maximum: 'PropertyConstraintViolation',
  exclusiveMinimum: 'PropertyConstraintViolation',
  exclusiveMaximum: 'PropertyConstraintViolation',
  multipleOf: 'PropertyConstraintViolation',
  pattern: 'PropertyConstraintViolation',
  format: 'PropertyConstraintViolation',
};

/** What ocpp-rpc's schema check reports (its error's `details`): ajv's errors, the first of which is named. */
interface SchemaDetails {
  errors?: { keyword?: unknown; instancePath?: unknown; message?: unknown }[];
  data?: unknown;
}

/**
 * A schema failure as the hub states it: its code (2.0.1 names) and a description naming the field
 * (the path of property names the schema defines) and the rule it breaks, never a value the charger
 * sent; null when `details` is not a schema failure's.
 */
export function schemaViolation(details: unknown): { code: string; description: string } | null {
  const first = (details as SchemaDetails | null)?.errors?.[0];
  if (!first || typeof first.keyword !== 'string') return null;
  const path = typeof first.instancePath === 'string' ? first.instancePath : '';
  const code = path === '' && first.keyword === 'type' ? 'FormatViolation' : (BY_KEYWORD[first.keyword] ?? 'FormatViolation');
  // ajv's messages are made of the schema's words (type names, limits, property names), never the data.
  const rule = typeof first.message === 'string' && /^must /.test(first.message) ? first.message : 'does not match the schema';
  const where = path === '' ? 'payload' : path.length > 60 ? `${path.slice(0, 57)}...` : path;
  return { code, description: `${where} ${rule}`.slice(0, MAX_DESCRIPTION) };
}

/** The description of a CALLERROR the hub did not word itself (ocpp-rpc's texts name the action or message id the charger sent). */
const PLAIN_TEXT: Record<string, string> = {
  NotImplemented: 'The action is not implemented',
  NotSupported: 'The action is not supported',
  RpcFrameworkError: 'The message is not an OCPP-J RPC message',
  FormatViolation: 'The message is not an OCPP-J RPC message',
  MessageTypeNotSupported: 'The message type is not supported',
  InternalError: 'Internal error',
};

/**
 * A CALLERROR as it may leave on a connection of `version`: the code in that version's spelling (a
 * schema failure's by the keyword that failed), the message id cut to OCPP's 36 characters, the
 * description the hub's own (its handlers' texts, a schema failure's field and rule, or a fixed text
 * per code: never ocpp-rpc's, the validator's or a runtime's words, nor anything the charger sent),
 * the details always empty: ocpp-rpc puts the charger's whole payload there on a schema failure.
 */
export function plainCallError(message: string, version: OcppVersion): string {
  let frame: unknown;
  try {
    frame = JSON.parse(message);
  } catch {
    return message;
  }
  if (!Array.isArray(frame) || frame[0] !== 4) return message;
  const [, id, code, description, details] = frame as [number, unknown, unknown, unknown, unknown];
  const violation = schemaViolation(details);
  const canonical = violation?.code ?? (typeof code === 'string' ? (CANONICAL[code] ?? code) : 'GenericError');
  const text =
    violation?.description ??
    (typeof description === 'string' && OWN_TEXTS.has(description) ? description : (PLAIN_TEXT[canonical] ?? 'The message was refused'));
  return JSON.stringify([4, String(id ?? '-1').slice(0, MAX_MESSAGE_ID), wireCode(canonical, version), text, {}]);
}

/** Why a charger's text is refused: one fixed text (a path would name what the charger sent, and each distinct text would be kept in OWN_TEXTS). */
export const UNSTORABLE_TEXT = 'A text value holds a character no store can hold (a NUL character or an unpaired surrogate)';

/**
 * Text no store can hold (NUL, which PostgreSQL text and jsonb refuse; unpaired surrogates) anywhere
 * in a charger's message, keys or values: PropertyConstraintViolation before a handler stores any
 * part of it (the platform's text guard does the same for HTTP requests).
 */
export function storableText(params: unknown): void {
  if (findIllFormedText(params, [])) throw rpcError('PropertyConstraintViolation', UNSTORABLE_TEXT);
}

/** The largest id a connector, EVSE or other integer the hub stores may have (PostgreSQL int). */
const INT_MAX = 2_147_483_647;
/**
 * A connector or EVSE id a message carries: a whole number from `min` (0 where the message may name the
 * whole charge point or its main meter, else 1) to INT_MAX; anything else is answered
 * PropertyConstraintViolation before the store sees it (the schemas say only "integer").
 */
export function connectorOf(v: unknown, field: string, min: 0 | 1): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > INT_MAX) {
    throw rpcError('PropertyConstraintViolation', `${field} must be a whole number from ${min} to ${INT_MAX}`);
  }
  return v;
}
