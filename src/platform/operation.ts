// One declaration per operation. Everything else (routing, the auth guard, rate limits, the error
// surface, deprecation headers, status-label refusals, the OpenAPI document and the check against
// spec/operations.json) derives from what is declared here.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ADMIN_ONLY, ANY_ROLE, CAN_CONFIGURE, CAN_INGEST, CAN_READ, type DeviceScope, type Role, type Scope } from './roles.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type StatusLabel = 'live' | 'awaiting-migration' | 'partner-gated' | 'demo-realm';
export type DataBasis = 'measured' | 'stored' | 'configured' | 'calculated' | 'forecast' | 'simulated';
/** An organisation module an operation requires (the organisations' catalogue names them). */
export type ModuleGate = string;

export type Access =
  | { kind: 'public' }
  /**
   * A user's bearer access token with one of these roles. With `device`, a device credential holding
   * that scope is admitted too (decision 0375); `siteParam` names the path parameter that must be
   * the credential's site.
   */
  | { kind: 'bearer'; roles: readonly Role[]; device?: { scope: DeviceScope; siteParam?: string } }
  /**
   * An API key holding `scope` ('any' = any key; 'read' = any read scope). Where the spec lets
   * people call the same operation, `bearerRoles` admits bearer tokens with those roles too.
   */
  | { kind: 'key'; scope: Scope | 'any' | 'read'; bearerRoles?: readonly Role[] };

/**
 * A user's bearer token with one of the role sets of roles.ts, declared once so an operation says
 * `access: BEARER.read` (issue 37: one way). An access with more (a device scope) spreads one:
 * `{ ...BEARER.ingest, device: { scope } }`.
 */
export const BEARER = {
  /** Every role. */
  read: { kind: 'bearer', roles: CAN_READ },
  /** Every role but VIEWER. */
  ingest: { kind: 'bearer', roles: CAN_INGEST },
  /** ORG_ADMIN and OPERATOR. */
  configure: { kind: 'bearer', roles: CAN_CONFIGURE },
  /** ORG_ADMIN only. */
  admin: { kind: 'bearer', roles: ADMIN_ONLY },
  /** Any role (the same set as read, named for operations that are not reads: signing out, one's own profile). */
  anyRole: { kind: 'bearer', roles: ANY_ROLE },
} as const satisfies Record<string, Access>;

export type Actor =
  | {
      kind: 'user';
      userId: string;
      roles: Role[];
      staff: boolean;
      admin: boolean;
      /** The session (`sid`) the token belongs to, when the identity module issued it. */
      tokenId?: string;
      /** When the access token expires (`exp`): a long-lived answer (a stream) ends then. */
      expiresAt?: Date;
    }
  | { kind: 'key'; keyId: string; scopes: Scope[]; environment: 'live' | 'sandbox' }
  | {
      kind: 'device';
      credentialId: string;
      siteId: string;
      /** The device ids the credential is limited to; null: any device of its site. */
      deviceIds: readonly string[] | null;
      scopes: DeviceScope[];
      /** Of these asset ids, those the credential may not write, each with the reason (decision 0375). */
      refusals(assetIds: readonly string[]): Promise<Map<string, DeviceRefusal>>;
    }
  | { kind: 'anonymous' };

/** Why a device credential may not write an asset's readings. */
export interface DeviceRefusal {
  reason: 'device_on_another_site' | 'device_not_in_credential' | 'device_not_in_topic';
  message: string;
}

export interface RequestContext {
  /** The organisation from the verified credential; '' on public operations. */
  orgId: string;
  actor: Actor;
  requestId: string;
  ip: string;
}

export interface OpSchemas {
  body?: TSchema;
  query?: TSchema;
  params?: TSchema;
  headers?: TSchema;
  /** Response schemas by status. Successful bodies are serialised through them. */
  response: Record<number, TSchema>;
}

// A part's input: its schema's static type; undefined without a schema; unknown in the erased
// `Operation` (any schema or none), which is what the platform hands the request's parts to.
type In<S extends OpSchemas, K extends keyof OpSchemas> = S[K] extends TSchema ? Static<S[K]> : TSchema extends S[K] ? unknown : undefined;

export interface OpInput<S extends OpSchemas> {
  body: In<S, 'body'>;
  query: In<S, 'query'>;
  params: In<S, 'params'>;
  ctx: RequestContext;
  req: FastifyRequest;
  reply: FastifyReply;
}

export interface Deprecation {
  /** Announcement day, YYYY-MM-DD (Deprecation header: 00:00 UTC that day). */
  on: string;
  /** Sunset day, YYYY-MM-DD (Sunset header: 23:59:59 GMT that day). */
  sunset: string;
  /** operationId of the replacement. */
  replacement: string;
}

export interface OperationDef<S extends OpSchemas = OpSchemas> {
  operationId: string;
  method: HttpMethod;
  /** The spec's path, with {param} segments. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  status: StatusLabel;
  access: Access;
  module?: ModuleGate;
  /** 'platform-staff': platform staff only; partner (organisation) tokens get 403. */
  audience?: 'platform-staff';
  /** Platform administrators only (a stronger flag than staff). */
  platformAdmin?: boolean;
  sandbox?: boolean;
  /**
   * The basis of the figures as declared in the OpenAPI entry. An answer from simulated data says
   * `simulated` instead, whatever is declared (register.ts, answerBasis): a sandbox key's answer on
   * a sandbox operation (anything but `configured`), and a demo organisation's answer (demo-*) where
   * the basis is `measured`, `calculated` or `forecast`, or `readings` marks a `stored` answer that
   * lists device readings. `demo` is for an operation that answers a demo organisation from data
   * of its own (a sample shipped with the service) instead of the declared source: that answer says
   * `simulated` with `demo` as its whole method, whatever the declared basis.
   */
  dataBasis?: { basis: DataBasis; method?: string; readings?: boolean; demo?: string };
  deprecation?: Deprecation;
  /**
   * Extra limit on top of the general ones: 'auth' (the shared authentication limit, per address),
   * or a limit class the operation's module declares (ModuleInstance.limitClasses).
   */
  rateLimit?: string;
  /** A health probe: never shed under load and not counted against the anonymous limit. */
  probe?: boolean;
  /**
   * A long-lived answer (a server-sent event stream): not counted among the requests in flight
   * for load shedding once admitted, since it holds no worker while it waits.
   */
  stream?: boolean;
  bodyLimit?: number;
  /**
   * The handler judges NUL characters and unpaired surrogates in the body itself (ingestion rejects
   * such records one by one); elsewhere the platform refuses them (platform/text-guard.ts).
   */
  handlesNulInBody?: boolean;
  /**
   * The operation also takes its body as `text/csv` (a file upload the spec catalogues as CSV):
   * the text, strictly UTF-8 (a byte order mark dropped), arrives as `body[member]` and the body
   * schema validates it as in the JSON form (`{"<member>": "..."}`), within the same body limit.
   * Every other operation answers a `text/csv` body 415 (platform/json-body.ts).
   */
  csvBody?: { member: string; description: string };
  /** Media type of successful answers when not JSON (e.g. 'text/csv'); the OpenAPI document says so. */
  produces?: string;
  /**
   * Status of a successful answer when the handler does not set one. Left out, it is the one 2xx
   * status the response schemas declare when that is not 200 (`response: { 201: X }` answers 201,
   * `{ 204: ... }` 204 with no body), else 200: see successStatusOf.
   */
  successStatus?: number;
  /**
   * Where a 201/202 answer's resource (the job, run or delivery it queued) is read: a path template
   * whose `{name}`s come from the answer's members, else the request's path parameters. The answer
   * carries it as `Location`, and the OpenAPI document says so.
   */
  locates?: string;
  /**
   * The body as clients should send it, for the OpenAPI document only, where the validation schema
   * is looser on purpose (ingestion judges each record itself and answers per record).
   */
  documentedBody?: TSchema;
  /** Headers a successful answer may carry beyond the platform's own (the OpenAPI document lists them). */
  responseHeaders?: Record<string, { description: string; schema: { type: 'string' | 'integer' | 'boolean'; enum?: unknown[] } }>;
  /** Answer with X-Request-Id even outside an envelope surface (ingestion, connector). */
  requestIdHeader?: boolean;
  /** Leave out of the OpenAPI document (test fixtures). */
  hidden?: boolean;
  schema: S;
  handler: (input: OpInput<S>) => Promise<unknown>;
}

export type Operation = OperationDef<OpSchemas>;

/**
 * Whether the operation's body may be left out (its schema declared with `Type.Optional`): an
 * absent body then reaches the handler as `{}`, and the OpenAPI entry says the body is optional.
 */
export function bodyIsOptional(op: Pick<Operation, 'schema'>): boolean {
  return (op.schema.body as { '~optional'?: boolean } | undefined)?.['~optional'] === true;
}

/** Whether the operation can be called without a body: optional, or a body that may be JSON null. */
export function bodyMayBeAbsent(op: Pick<Operation, 'schema'>): boolean {
  const type = (op.schema.body as { type?: unknown } | undefined)?.type;
  return bodyIsOptional(op) || (Array.isArray(type) && type.includes('null'));
}

/**
 * The status of a successful answer when the handler sets none: the declared `successStatus`, else
 * the response schemas' only 2xx status when it is not 200, else none (200).
 */
export function successStatusOf(op: Pick<Operation, 'successStatus' | 'schema'>): number | undefined {
  if (op.successStatus !== undefined) return op.successStatus;
  const ok = Object.keys(op.schema.response)
    .map(Number)
    .filter((s) => s >= 200 && s < 300);
  return ok.length === 1 && ok[0] !== 200 ? ok[0] : undefined;
}

export function defineOperation<S extends OpSchemas>(def: OperationDef<S>): Operation {
  return def as unknown as Operation;
}

/** Members a module may fix for all its operations (each operation may still say otherwise). */
type Shared = Pick<OperationDef, 'tags' | 'status' | 'module' | 'access' | 'dataBasis'>;

/**
 * `defineOperation` with members a module shares across its operations (tags, status label, module
 * gate) filled in, keeping TypeBox's typing of each handler's input:
 * `const op = withDefaults({ tags: ['field'], status: 'live', module: 'field' })`.
 */
export function withDefaults<D extends Partial<Shared>>(defaults: D) {
  return <S extends OpSchemas>(def: Omit<OperationDef<S>, keyof D> & Partial<Shared>): Operation =>
    defineOperation<S>({ ...defaults, ...def } as unknown as OperationDef<S>);
}
