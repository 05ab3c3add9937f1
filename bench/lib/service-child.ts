// The service under benchmark, in its own process (so its RSS and CPU are its own). Started by
// bench/ingest.ts under `taskset -c 0`; configuration comes from the environment as in production.
// Reports over IPC: 'ready' with the address, then on request its peak RSS, CPU time and garbage
// collections.
import { constants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { loadConfig } from '../../src/config.ts';
import { startService } from '../../src/server.ts';
import { createProvisioning } from '../../src/cli/provisioning.ts';

const config = loadConfig(process.env);
const svc = await startService(config, { schema: process.env.BENCH_SCHEMA || undefined, ephemeralBus: true });
await createProvisioning(svc.deps.db).createOrg({ id: process.env.BENCH_ORG ?? 'bench', name: 'Benchmark' });
const address = await svc.app.listen({ port: 0, host: '127.0.0.1' });

let peakRss = process.memoryUsage.rss();
// Peaks of what the RSS is made of (V8 heap, memory outside it held by JS objects such as Buffers).
const peakMem = (({ heapTotal, heapUsed, external, arrayBuffers }) => ({ heapTotal, heapUsed, external, arrayBuffers }))(process.memoryUsage());
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
  const m = process.memoryUsage();
  for (const k of Object.keys(peakMem) as (keyof typeof peakMem)[]) peakMem[k] = Math.max(peakMem[k], m[k]);
}, 50).unref();

// Garbage collections so far: full (mark-compact) ones and their pauses, which make latency tails.
// Young (scavenge) pauses are kept one by one: a run has a few hundred, and each is a stall of
// every request in flight.
const gc = { full: 0, fullPauseMs: 0, fullMaxPauseMs: 0, young: 0, youngPausesMs: [] as number[] };
new PerformanceObserver((list) => {
  for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      gc.full++;
      gc.fullPauseMs += e.duration;
      gc.fullMaxPauseMs = Math.max(gc.fullMaxPauseMs, e.duration);
    } else {
      gc.young++;
      gc.youngPausesMs.push(e.duration);
    }
  }
}).observe({ entryTypes: ['gc'] });

const send = (m: unknown) => process.send!(m);
send({
  type: 'ready',
  address,
  store: svc.deps.db.kind,
  bus: svc.deps.bus.kind,
  cache: svc.deps.cache.kind,
  rss: process.memoryUsage.rss(),
  mem: process.memoryUsage(),
});

process.on('message', async (m: { type: string; sql?: string }) => {
  if (m.type === 'reset-loop-delay') {
    loopDelay.reset();
    loopDelay.enable();
    send({ type: 'reset-loop-delay' });
  } else if (m.type === 'stats') {
    const cpu = process.cpuUsage();
    loopDelay.disable();
    send({
      type: 'stats',
      peakRss: Math.max(peakRss, process.resourceUsage().maxRSS * 1024),
      rss: process.memoryUsage.rss(),
      peakMem,
      cpuMs: (cpu.user + cpu.system) / 1000,
      // Event-loop delay over the fixed-rate phase, in ms.
      loopDelayMs: { p50: loopDelay.percentile(50) / 1e6, p99: loopDelay.percentile(99) / 1e6, max: loopDelay.max / 1e6 },
    });
  } else if (m.type === 'cpu') {
    // CPU time so far (user + system, ms): the benchmark takes it around each API phase.
    const cpu = process.cpuUsage();
    send({ type: 'cpu', cpuMs: (cpu.user + cpu.system) / 1000, gc: { ...gc, youngPausesMs: [...gc.youngPausesMs] } });
  } else if (m.type === 'sql') {
    // Unscoped, as the owner: the benchmark checks row counts and truncates between phases.
    const r = await svc.deps.db.query(m.sql!);
    send({ type: 'sql', rows: r.rows });
  } else if (m.type === 'stop') {
    await svc.stop();
    process.exit(0);
  }
});
