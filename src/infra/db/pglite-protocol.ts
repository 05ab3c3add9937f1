// What the embedded store needs from PGlite (PgliteEngine, inline or in a worker), and the messages
// between the store's client (pglite-client.ts, on the service's thread) and the worker thread that
// owns the PGlite instance (pglite-worker.ts). Values cross by structured clone, which keeps what
// PGlite's parsers make (Date, Uint8Array, bigint, parsed JSON, arrays).
import { messages, PGlite, type PGliteOptions } from '@electric-sql/pglite';
import type { Queryable, QueryResult } from './index.ts';

/** A compiled WebAssembly module (the project's libraries carry no WebAssembly types). */
export type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;
/**
 * PGlite's start options for a shared_buffers other than PostgreSQL's default (PGlite's own start
 * parameters kept). Its buffers are memory inside the WASM engine: 128 MB of them were about 100 MB
 * of an idle embedded instance's resident memory (decision 0388).
 */
export function startOptions(sharedBuffersMb: number | undefined): Pick<PGliteOptions, 'startParams'> {
  if (sharedBuffersMb === undefined || sharedBuffersMb === 128) return {};
  return { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${sharedBuffersMb}MB`] };
}

/** The global WebAssembly object, the parts used here. */
export const Wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule>; RuntimeError: ErrorConstructor } }).WebAssembly;

export interface WorkerInit {
  /** Data directory on disk; undefined = in memory. */
  dataDir?: string;
  /** A dump to start from (`dumpDataDir`); shared with the worker, not copied. */
  loadDataDir?: Blob;
  /** Compiled once per process and shared by every worker (compiling costs more than starting). */
  pgliteWasmModule?: WasmModule;
  initdbWasmModule?: WasmModule;
  /**
   * One Float64: Date.now() each time the worker's JavaScript last ran (it took a message or a
   * statement came back). While a statement runs inside the WASM engine the worker cannot answer;
   * this says how long it has been at it (see WorkerEngine.ping).
   */
  heartbeat: SharedArrayBuffer;
  /** PostgreSQL's shared_buffers in MB (see startOptions). */
  sharedBuffersMb?: number;
}

export type Request =
  | { id: number; op: 'query'; sql: string; params?: unknown[]; scope?: string; tx?: number }
  | { id: number; op: 'exec'; sql: string }
  | { id: number; op: 'begin'; scope?: string }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'ping' }
  | { id: number; op: 'dump' }
  | { id: number; op: 'close' };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** The worker's first message: ready, or why the store could not be opened. */
export type Hello = { ready: true } | { ready: false; error: WireError };

export interface WireError {
  /** `database`: PostgreSQL answered with an error (DatabaseError); `engine`: the WASM engine failed. */
  kind: 'database' | 'engine' | 'other';
  name: string;
  message: string;
  stack?: string;
  /** The error's own fields with primitive values: code, detail, constraint, severity, table... */
  fields: Record<string, string | number | boolean | null | undefined>;
}

export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { kind: 'other', name: 'Error', message: String(e), fields: {} };
  const fields: WireError['fields'] = {};
  for (const [k, v] of Object.entries(e)) {
    // query, params and queryOptions are the caller's own; the client puts them back.
    if (k === 'query' || k === 'params' || k === 'queryOptions') continue;
    if (v == null || ['string', 'number', 'boolean'].includes(typeof v)) fields[k] = v as WireError['fields'][string];
  }
  const kind = e instanceof messages.DatabaseError ? 'database' : e instanceof Wasm.RuntimeError ? 'engine' : 'other';
  return { kind, name: e.name, message: e.message, stack: e.stack, fields };
}

/** The error as the in-thread adapter would have thrown it (same class and fields). */
export function fromWire(w: WireError, call?: { sql?: string; params?: unknown[] }): Error {
  let e: Error;
  if (w.kind === 'database') {
    const { length, name, ...rest } = w.fields;
    e = Object.assign(new messages.DatabaseError(w.message, Number(length ?? 0), (name ?? 'error') as messages.MessageName), rest);
    if (call?.sql !== undefined) Object.assign(e, { query: call.sql, params: call.params ?? [], queryOptions: undefined });
  } else {
    e = Object.assign(w.kind === 'engine' ? new Wasm.RuntimeError(w.message) : new Error(w.message), w.fields);
    if (w.name !== e.name) Object.defineProperty(e, 'name', { value: w.name, configurable: true, writable: true });
  }
  if (w.stack) e.stack = `${w.stack}\n    at (embedded store worker)`;
  return e;
}

/** What the store needs from PGlite, in this thread or in a worker. */
export interface PgliteEngine {
  /** One statement; with a scope, inside a transaction that sets it first. */
  query<T>(sql: string, params: unknown[] | undefined, scope: string | undefined): Promise<QueryResult<T>>;
  transaction<T>(scope: string | undefined, fn: (q: Queryable) => Promise<T>): Promise<T>;
  exec(sql: string): Promise<void>;
  ping(timeoutMs: number): Promise<boolean>;
  dump(): Promise<Blob>;
  close(): Promise<void>;
  /** Worker only: ends the thread as a crash would. */
  terminate?(): Promise<void>;
}
