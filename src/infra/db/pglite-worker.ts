// The embedded store's worker thread: owns the PGlite instance, so a long statement (a large
// ingestion batch runs for seconds inside the WASM engine) blocks this thread, not the service's
// event loop. Started by pglite-client.ts; one request at a time reaches PGlite's own queue, in
// the order sent. Statements of an open transaction go to that transaction (PGlite holds every
// other query until it ends), exactly as the in-thread adapter's pg.transaction does.
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { scopeStatement } from './scope.ts';
import { startOptions, toWire, type Hello, type Reply, type Request, type WorkerInit } from './pglite-protocol.ts';

const init = workerData as WorkerInit;
const port = parentPort!;
const heartbeat = new Float64Array(init.heartbeat);
const beat = () => {
  heartbeat[0] = Date.now();
};

const rowsOf = (r: { rows: unknown[]; affectedRows?: number }) => ({
  // As pg reports it: rows returned, else rows affected (PGlite says 0 affected for a SELECT).
  rows: r.rows,
  rowCount: r.rows.length || r.affectedRows || 0,
});

interface OpenTx {
  tx: Transaction;
  end(commit: boolean): void;
  done: Promise<unknown>;
}

let pg: PGlite;
const open = new Map<number, OpenTx>();
let txSeq = 0;
let running = 0;

async function handle(m: Request): Promise<{ value: unknown; transfer?: ArrayBuffer[] }> {
  switch (m.op) {
    case 'query': {
      if (m.tx !== undefined) {
        const t = open.get(m.tx);
        if (!t) throw new Error('Transaction is closed');
        return { value: rowsOf(await t.tx.query(m.sql, m.params)) };
      }
      if (m.scope === undefined) return { value: rowsOf(await pg.query(m.sql, m.params)) };
      // One connection serves every request in turn, so a scope is set per transaction (local).
      return {
        value: await pg.transaction(async (tx) => {
          const [sql, params] = scopeStatement(m.scope, true);
          await tx.query(sql, params);
          return rowsOf(await tx.query(m.sql, m.params));
        }),
      };
    }
    case 'exec':
      await pg.exec(m.sql);
      return { value: undefined };
    case 'begin': {
      const id = ++txSeq;
      let opened!: () => void;
      const ready = new Promise<void>((r) => (opened = r));
      let end!: (commit: boolean) => void;
      const ended = new Promise<boolean>((r) => (end = r));
      const done = pg.transaction(async (tx) => {
        if (m.scope !== undefined) {
          const [sql, params] = scopeStatement(m.scope, true);
          await tx.query(sql, params);
        }
        open.set(id, { tx, end, done });
        opened();
        const commit = await ended;
        open.delete(id);
        if (!commit) await tx.rollback();
      });
      // Either the transaction is open (its statements and its end come next) or BEGIN failed.
      await Promise.race([ready, done]);
      return { value: id };
    }
    case 'end': {
      const t = open.get(m.tx);
      if (!t) throw new Error('Transaction is closed');
      t.end(m.commit);
      await t.done;
      return { value: undefined };
    }
    case 'ping':
      // A worker that reads its messages while statements are queued, or while a transaction
      // waits for its caller's next statement, is making progress; when idle, the engine itself
      // must answer.
      if (running > 1 || open.size > 0) return { value: true };
      await pg.query('select 1');
      return { value: true };
    case 'dump': {
      const buf = await (await pg.dumpDataDir('none')).arrayBuffer();
      return { value: buf, transfer: [buf] };
    }
    case 'close':
      await pg.close();
      return { value: undefined };
  }
}

async function onMessage(m: Request) {
  beat();
  running++;
  let reply: Reply;
  let transfer: ArrayBuffer[] | undefined;
  try {
    const out = await handle(m);
    reply = { id: m.id, ok: true, value: out.value };
    transfer = out.transfer;
  } catch (e) {
    reply = { id: m.id, ok: false, error: toWire(e) };
  }
  running--;
  beat();
  try {
    port.postMessage(reply, transfer);
  } catch (e) {
    port.postMessage({ id: m.id, ok: false, error: toWire(e) } satisfies Reply); // a value that cannot cross
  }
  if (m.op === 'close' && reply.ok) port.close();
}

try {
  pg = await PGlite.create({
    ...(init.dataDir && { dataDir: init.dataDir }),
    ...(init.loadDataDir && { loadDataDir: init.loadDataDir }),
    ...(init.pgliteWasmModule && { pgliteWasmModule: init.pgliteWasmModule }),
    ...(init.initdbWasmModule && { initdbWasmModule: init.initdbWasmModule }),
    ...startOptions(init.sharedBuffersMb),
  });
  port.on('message', (m: Request) => void onMessage(m));
  beat();
  port.postMessage({ ready: true } satisfies Hello);
} catch (e) {
  port.postMessage({ ready: false, error: toWire(e) } satisfies Hello);
  port.close();
}
