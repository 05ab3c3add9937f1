// The service's side of the embedded store in a worker thread (decision 0034). PGlite runs a
// statement synchronously inside its WASM engine: in the service's thread a 4 MB ingestion batch
// stopped every request, health checks included, for seconds. Here the engine runs in a
// `node:worker_threads` Worker (pglite-worker.ts) and this side sends it requests.
//
// - Results and errors come back as the in-thread adapter gives them (see pglite-protocol.ts).
// - A transaction is opened in the worker and its statements go to it; PGlite holds every other
//   query until it ends, so nothing interleaves inside an open transaction.
// - A worker that stops (crash, engine failure) fails every request in flight and every new one
//   with StoreUnavailableError (503), never leaves one waiting. A store on disk is started again
//   in a new worker (PostgreSQL's recovery at start, as after a crash); an in-memory one is gone.
import { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Queryable, QueryResult } from './index.ts';
import { StoreUnavailableError, withTimeout } from './index.ts';
import { fromWire, Wasm, type PgliteEngine, type WasmModule, type Hello, type Reply, type Request, type WorkerInit } from './pglite-protocol.ts';

/**
 * While the worker does not answer a ping because a statement is running inside the engine, the
 * store counts as busy but healthy for this long; a statement running longer counts as the store
 * not answering. A 6 MB batch (the ingestion body limit) takes a few seconds on a loaded 2-core box.
 */
export const BUSY_LIMIT_MS = 30_000;

/** How long close() waits for the worker's statements to end before stopping the thread. */
const CLOSE_WAIT_MS = 10_000;

const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;

let compiled: Promise<{ pglite?: WasmModule; initdb?: WasmModule }> | undefined;

/** PGlite's WASM, compiled once per process and shared by every worker (a Module crosses threads without copying). */
function wasmModules() {
  compiled ??= (async () => {
    try {
      const dist = dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
      const [pglite, initdb] = await Promise.all(['pglite.wasm', 'initdb.wasm'].map(async (f) => Wasm.compile(await readFile(join(dist, f)))));
      return { pglite, initdb };
    } catch {
      return {}; // each worker then compiles its own (PGlite's default)
    }
  })();
  return compiled;
}

type Call = Request extends infer R ? (R extends Request ? Omit<R, 'id'> : never) : never;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  sql?: string;
  params?: unknown[];
  /** The caller's frames, so an error shows where the statement came from. */
  site: { stack?: string };
}

export async function openWorkerEngine(opts: {
  dataDir?: string;
  loadDataDir?: Blob;
  sharedBuffersMb?: number;
  onEvent?: (e: 'stopped' | 'restart-scheduled' | 'restarted') => void;
}): Promise<PgliteEngine> {
  const wasm = await wasmModules();
  const heartbeat = new SharedArrayBuffer(8);
  const lastTurn = new Float64Array(heartbeat);
  const pending = new Map<number, Pending>();
  let seq = 0;
  let worker: Worker | undefined;
  /** Counts the workers started; a transaction belongs to the one that opened it. */
  let generation = 0;
  /** Why requests fail now (the worker stopped, no new one yet). */
  let down: StoreUnavailableError | undefined;
  let closed = false;
  let restartDelay = RESTART_FIRST_MS;

  function start(loadDataDir?: Blob): Promise<void> {
    const init: WorkerInit = {
      dataDir: opts.dataDir,
      loadDataDir,
      pgliteWasmModule: wasm.pglite,
      initdbWasmModule: wasm.initdb,
      heartbeat,
      sharedBuffersMb: opts.sharedBuffersMb,
    };
    const w = new Worker(new URL('./pglite-worker.ts', import.meta.url), { workerData: init, name: 'pglite' });
    return new Promise<void>((resolve, reject) => {
      const early = (e: Error) => reject(e);
      const earlyExit = (code: number) => reject(new Error(`the embedded store's worker exited with code ${code} while opening`));
      w.once('error', early);
      w.once('exit', earlyExit);
      w.once('message', (hello: Hello) => {
        w.off('error', early);
        w.off('exit', earlyExit);
        if (!hello.ready) {
          void w.terminate();
          reject(fromWire(hello.error));
          return;
        }
        worker = w;
        generation++;
        w.on('message', (r: Reply) => settle(r));
        w.on('error', (e) => stopped(w, e.message));
        w.on('exit', (code) => stopped(w, `exit code ${code}`));
        w.unref(); // referenced only while requests wait for it (see call)
        resolve();
      });
    });
  }

  function settle(r: Reply) {
    const p = pending.get(r.id);
    if (!p) return;
    pending.delete(r.id);
    if (pending.size === 0) worker?.unref();
    if (r.ok) return p.resolve(r.value);
    if (r.error.kind === 'engine') {
      // The WASM engine failed (out of memory, trap): the instance cannot be trusted any more.
      p.reject(new StoreUnavailableError(`embedded engine failed: ${r.error.message}`, { cause: fromWire(r.error) }));
      if (worker) void worker.terminate();
      return;
    }
    const e = fromWire(r.error, p);
    if (p.site.stack) e.stack = `${e.stack}\n${p.site.stack.split('\n').slice(1).join('\n')}`;
    p.reject(e);
  }

  function stopped(w: Worker, reason: string) {
    if (w !== worker) return;
    worker = undefined;
    if (closed) return;
    down = new StoreUnavailableError(`the embedded store's worker stopped (${reason})`);
    for (const p of pending.values()) p.reject(down);
    pending.clear();
    opts.onEvent?.('stopped');
    // A store on disk recovers as after a crash; an in-memory one lost its data with the thread.
    if (opts.dataDir) scheduleRestart();
  }

  function scheduleRestart() {
    const t = setTimeout(async () => {
      if (closed) return;
      try {
        await start();
        if (closed) {
          // Closed while the new worker was opening: let it close its engine and end.
          worker?.postMessage({ id: 0, op: 'close' } satisfies Request);
          worker = undefined;
          return;
        }
        down = undefined;
        restartDelay = RESTART_FIRST_MS;
        opts.onEvent?.('restarted');
      } catch {
        restartDelay = Math.min(restartDelay * 2, RESTART_MAX_MS);
        scheduleRestart();
      }
    }, restartDelay);
    t.unref();
    opts.onEvent?.('restart-scheduled');
  }

  function call<T>(req: Call, meta: { sql?: string; params?: unknown[]; generation?: number } = {}): Promise<T> {
    // After close(), a transaction already open may still finish (its statements and its end), as
    // in the thread: the worker closes the engine once it has ended.
    if (closed && meta.generation === undefined) return Promise.reject(new StoreUnavailableError('the embedded store is closed'));
    const w = worker;
    if (!w || down) return Promise.reject(down ?? new StoreUnavailableError('the embedded store is not open'));
    if (meta.generation !== undefined && meta.generation !== generation) {
      return Promise.reject(new StoreUnavailableError("the embedded store's worker restarted during this transaction"));
    }
    const site: { stack?: string } = {};
    Error.captureStackTrace(site, call);
    const id = ++seq;
    return new Promise<T>((resolve, reject) => {
      try {
        w.postMessage({ ...req, id } as Request);
      } catch (e) {
        reject(e as Error); // a parameter that cannot cross (DataCloneError)
        return;
      }
      if (pending.size === 0) w.ref();
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, sql: meta.sql, params: meta.params, site });
    });
  }

  await start(opts.loadDataDir);

  return {
    query<T>(sql: string, params: unknown[] | undefined, scope: string | undefined) {
      return call<QueryResult<T>>({ op: 'query', sql, params, scope }, { sql, params });
    },
    async transaction<T>(scope: string | undefined, fn: (q: Queryable) => Promise<T>): Promise<T> {
      const g = generation;
      const tx = await call<number>({ op: 'begin', scope });
      const q: Queryable = {
        query: <R>(sql: string, params?: unknown[]) => call<QueryResult<R>>({ op: 'query', sql, params, tx }, { sql, params, generation: g }),
      };
      let out: T;
      try {
        out = await fn(q);
      } catch (e) {
        await call({ op: 'end', tx, commit: false }, { generation: g }).catch(() => {});
        throw e;
      }
      await call({ op: 'end', tx, commit: true }, { generation: g });
      return out;
    },
    async exec(sql: string) {
      await call({ op: 'exec', sql }, { sql });
    },
    async ping(timeoutMs: number) {
      if (closed || down || !worker) return false;
      const answer = call<boolean>({ op: 'ping' }).catch(() => false);
      const v = await withTimeout<boolean | undefined>(answer, timeoutMs, undefined);
      if (v !== undefined) return v;
      // No answer yet: the worker's thread is inside one statement (it reads messages between
      // statements). Busy, not broken, unless that statement has run for longer than the limit.
      return !closed && !down && worker !== undefined && Date.now() - lastTurn[0] < BUSY_LIMIT_MS;
    },
    async dump() {
      return new Blob([await call<ArrayBuffer>({ op: 'dump' })]);
    },
    async terminate() {
      await worker?.terminate();
    },
    async close() {
      if (closed) return;
      const w = worker;
      if (!w) {
        closed = true;
        return;
      }
      const exited = new Promise<void>((r) => w.once('exit', () => r()));
      const bye = call({ op: 'close' }).catch(() => {});
      closed = true; // requests after this one are refused
      w.ref();
      const timer = setTimeout(() => void w.terminate(), CLOSE_WAIT_MS);
      await bye;
      await exited;
      clearTimeout(timer);
      worker = undefined;
      for (const p of pending.values()) p.reject(new StoreUnavailableError('the embedded store is closed'));
      pending.clear();
    },
  };
}
