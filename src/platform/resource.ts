// A resource's list, create, get, update and delete operations declared from one description
// (issue 37: one kit, one way). Each operation is still an ordinary declaration (operation.ts): the
// helper only writes what every such set repeats, from the resource's path, its id parameter and
// its schemas: the method, the path, the operation id, the path parameter and the success status.
import { Type, type Static, type TObject, type TSchema, type TString } from 'typebox';
import type { Access, DataBasis, HttpMethod, Operation, OperationDef, OpSchemas, RequestContext } from './operation.ts';

/** The members a module's `op` (withDefaults) fills in when an operation leaves them out. */
type Defaulted = 'tags' | 'status' | 'module' | 'access' | 'dataBasis';

/** A module's `op`: `withDefaults({...})` or `defineOperation`. */
export type Declare = <S extends OpSchemas>(def: Omit<OperationDef<S>, Defaulted> & Partial<Pick<OperationDef, Defaulted>>) => Operation;

/** What each operation of the set says of its own: its texts, and its access and data basis where the module's defaults do not fit. */
export interface OpTexts {
  summary: string;
  description?: string;
  access?: Access;
  dataBasis?: { basis: DataBasis; method?: string; readings?: boolean; demo?: string };
  /** Error statuses the operation declares beside its success (`{ 404: ErrorResponse }`). */
  errors?: Record<number, TSchema>;
}

/** The resource: its name, path, id parameter and item. */
export type ResourceHead = HeadCommon & ({ idSchema: TString; params?: never } | { params: TObject<Record<string, TString>>; idSchema?: never });

interface HeadCommon {
  /** The operation ids' noun: `CrmAccount` names listCrmAccounts, createCrmAccount, getCrmAccount, updateCrmAccount, deleteCrmAccount. */
  name: string;
  /** The plural in the list's id where it is not `name` + s (`CrmActivities`). */
  plural?: string;
  /** The collection's path; one item is `<path>/{<id>}`. */
  path: string;
  /** The item's path parameter (`account_id`) and its schema, or the module's params object of that one member. */
  id: string;
  /** The item as create, get and update answer it. */
  item: TSchema;
}

/** Its operations, each the texts and service call of its own. */
export interface ResourceOps<Q extends TSchema, B extends TSchema, U extends TSchema> {
  /** GET <path>: a page of items (`response`) filtered by `query`. */
  list?: OpTexts & { query: Q; response: TSchema; handler: (ctx: RequestContext, query: Static<Q>) => Promise<unknown> };
  /** POST <path>: answers 201 with the item (or `response`); `verb` replaces `create` in the operation id (`register`). */
  create?: OpTexts & { body: B; response?: TSchema; verb?: string; handler: (ctx: RequestContext, body: Static<B>) => Promise<unknown> };
  /** GET <path>/{id}. */
  get?: OpTexts & { response?: TSchema; handler: (ctx: RequestContext, id: string) => Promise<unknown> };
  /** PATCH (or `method`: PUT) <path>/{id}: answers the item; `verb` replaces `update` in the operation id (`replace`). */
  update?: OpTexts & {
    body: U;
    method?: Extract<HttpMethod, 'PATCH' | 'PUT'>;
    verb?: string;
    handler: (ctx: RequestContext, id: string, body: Static<U>) => Promise<unknown>;
  };
  /** DELETE <path>/{id}: answers 204 with no body (`deleted` describes it; default `Deleted`). */
  remove?: OpTexts & { deleted?: string; handler: (ctx: RequestContext, id: string) => Promise<unknown> };
}

/** A path parameter object of one member: `{ <name>: <schema> }`. */
export const idParam = <T extends TSchema>(name: string, schema: T) => Type.Object({ [name]: schema });

/** The texts, access and data basis of one operation, as its declaration takes them (members left out stay out). */
function own(t: OpTexts) {
  return {
    summary: t.summary,
    ...(t.description === undefined ? {} : { description: t.description }),
    ...(t.access === undefined ? {} : { access: t.access }),
    ...(t.dataBasis === undefined ? {} : { dataBasis: t.dataBasis }),
  };
}

/**
 * The declared operations of a resource, in the order list, create, get, update, delete (those the
 * description has): `...resourceOps(op, { name: 'CrmAccount', path: `${BASE}/accounts`, id: 'account_id', idSchema, item }, { list, get, ... })`.
 */
export function resourceOps<Q extends TSchema, B extends TSchema, U extends TSchema>(op: Declare, r: ResourceHead, ops: ResourceOps<Q, B, U>): Operation[] {
  const one = `${r.path}/{${r.id}}`;
  const params = r.params === undefined ? idParam(r.id, r.idSchema) : r.params;
  const out: Operation[] = [];
  const { list, create, get, update, remove } = ops;
  if (list) {
    out.push(
      op({
        operationId: `list${r.plural ?? `${r.name}s`}`,
        method: 'GET',
        path: r.path,
        ...own(list),
        schema: { query: list.query, response: { 200: list.response, ...list.errors } },
        // The query validated against list.query (In<> does not reduce for a schema type still generic here).
        handler: async ({ ctx, query }) => list.handler(ctx, query as Static<Q>),
      }),
    );
  }
  if (create) {
    out.push(
      op({
        operationId: `${create.verb ?? 'create'}${r.name}`,
        method: 'POST',
        path: r.path,
        ...own(create),
        schema: { body: create.body, response: { 201: create.response ?? r.item, ...create.errors } },
        // The body validated against create.body (as for the list's query).
        handler: async ({ ctx, body }) => create.handler(ctx, body as Static<B>),
      }),
    );
  }
  if (get) {
    out.push(
      op({
        operationId: `get${r.name}`,
        method: 'GET',
        path: one,
        ...own(get),
        schema: { params, response: { 200: get.response ?? r.item, ...get.errors } },
        handler: async ({ ctx, params }) => get.handler(ctx, params[r.id]),
      }),
    );
  }
  if (update) {
    out.push(
      op({
        operationId: `${update.verb ?? 'update'}${r.name}`,
        method: update.method ?? 'PATCH',
        path: one,
        ...own(update),
        schema: { params, body: update.body, response: { 200: r.item, ...update.errors } },
        // The body validated against update.body (as for the list's query).
        handler: async ({ ctx, params, body }) => update.handler(ctx, params[r.id], body as Static<U>),
      }),
    );
  }
  if (remove) {
    out.push(
      op({
        operationId: `delete${r.name}`,
        method: 'DELETE',
        path: one,
        ...own(remove),
        schema: { params, response: { 204: Type.Null({ description: remove.deleted ?? 'Deleted' }), ...remove.errors } },
        handler: async ({ ctx, params }) => {
          await remove.handler(ctx, params[r.id]);
        },
      }),
    );
  }
  return out;
}

// The schemas of the operations that take one part and answer 200 (or 201) with one body, the shape
// most declarations repeat: `schema: paramsTo(SiteParams, Enrolment)` is
// `schema: { params: SiteParams, response: { 200: Enrolment } }`. TypeBox's typing of the handler's
// input is kept (each returns its arguments' own types).

/** `{ params, response: { 200: answer } }`. */
export const paramsTo = <P extends TSchema, R extends TSchema>(params: P, answer: R) => ({ params, response: { 200: answer } });

/** `{ query, response: { 200: answer } }`. */
export const queryTo = <Q extends TSchema, R extends TSchema>(query: Q, answer: R) => ({ query, response: { 200: answer } });

/** `{ body, response: { 200: answer } }`. */
export const bodyTo = <B extends TSchema, R extends TSchema>(body: B, answer: R) => ({ body, response: { 200: answer } });

/** `{ body, response: { 201: answer } }`: the operation answers 201 Created. */
export const bodyToCreated = <B extends TSchema, R extends TSchema>(body: B, answer: R) => ({ body, response: { 201: answer } });
