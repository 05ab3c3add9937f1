// The service under fault, as production runs it: `node src/main.ts` in its own process, pinned
// to core 0 with taskset (bench/lib/child.ts decides whether taskset exists), configured from the
// environment, on a fixed port so that clients can keep retrying across a kill -9 and restart.
// Its stdout/stderr go to a log file in the run's temp dir (tail printed on trouble).
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasTaskset, SERVICE_NODE_ARGS } from '../../lib/child.ts';
import { onCleanup, sleep } from './servers.ts';

const MAIN = fileURLToPath(new URL('../../../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface ServiceProcess {
  port: number;
  url: string;
  pid(): number | undefined;
  /** Spawns the process and waits until /api/telemetry/healthz answers. Returns ms taken. */
  start(): Promise<number>;
  /** SIGKILL, then waits for the exit. */
  kill9(): Promise<void>;
  /** SIGTERM (graceful), then waits for the exit. */
  stop(): Promise<void>;
  running(): boolean;
  logTail(lines?: number): string;
  /** Called when the process exits without being asked to (a crash the run did not cause). */
  onUnexpectedExit?: (code: number | null, signal: string | null) => void;
}

/** Base environment every fault run gives the service (production mode, quiet logs, no demo). */
export function baseEnv(jwtSecret: string, namespace: string): Record<string, string> {
  return {
    NODE_ENV: 'production',
    HUB_OCPP_PUBLIC_URL: 'wss://hub.fault.invalid',
    JWT_SECRET: jwtSecret,
    LOG_LEVEL: process.env.FAULT_SERVICE_LOG_LEVEL ?? 'warn',
    NAMESPACE: namespace,
    SEED_DEMO: 'false',
    HOST: '127.0.0.1',
    // No run reaches past this machine, whatever a webhook URL says.
    OUTBOUND_LOOPBACK_ONLY: 'true',
  };
}

export function serviceProcess(opts: { name: string; port: number; env: Record<string, string>; logFile: string; core?: number }): ServiceProcess {
  const pinned = hasTaskset();
  let proc: ChildProcess | undefined;
  let expectingExit = false;
  const svc: ServiceProcess = {
    port: opts.port,
    url: `http://127.0.0.1:${opts.port}`,
    pid: () => proc?.pid,
    running: () => !!proc && proc.exitCode === null && proc.signalCode === null,
    async start() {
      const t0 = performance.now();
      const fd = openSync(opts.logFile, 'a');
      const argv = pinned ? ['-c', String(opts.core ?? 0), process.execPath, ...SERVICE_NODE_ARGS, MAIN] : [...SERVICE_NODE_ARGS, MAIN];
      const p = spawn(pinned ? 'taskset' : process.execPath, argv, {
        cwd: ROOT,
        env: { ...process.env, ...opts.env, PORT: String(opts.port) },
        stdio: ['ignore', fd, fd],
      });
      closeSync(fd);
      proc = p;
      expectingExit = false;
      p.once('exit', (code, signal) => {
        if (!expectingExit) svc.onUnexpectedExit?.(code, signal);
      });
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if (p.exitCode !== null || p.signalCode !== null) {
          throw new Error(`${opts.name} exited during start (${p.exitCode ?? p.signalCode}):\n${svc.logTail()}`);
        }
        try {
          const r = await fetch(`${svc.url}/api/telemetry/healthz`, { signal: AbortSignal.timeout(1000) });
          if (r.status === 200) return performance.now() - t0;
        } catch {
          /* not listening yet */
        }
        await sleep(50);
      }
      throw new Error(`${opts.name}: not healthy within 60 s:\n${svc.logTail()}`);
    },
    async kill9() {
      const p = proc;
      if (!p || !svc.running()) return;
      expectingExit = true;
      const done = new Promise((r) => p.once('exit', r));
      p.kill('SIGKILL');
      await done;
    },
    async stop() {
      const p = proc;
      if (!p || !svc.running()) return;
      expectingExit = true;
      const done = new Promise((r) => p.once('exit', r));
      p.kill('SIGTERM');
      const t = setTimeout(() => p.kill('SIGKILL'), 35_000);
      await done;
      clearTimeout(t);
    },
    logTail(lines = 30) {
      try {
        return readFileSync(opts.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
  };
  onCleanup(`${opts.name} pid`, () => svc.kill9());
  return svc;
}

// ---------------------------------------------------------------------------------------------
// Readiness watcher: polls /api/telemetry/readyz and records every change of status and checks.

export interface ReadinessSample {
  at: number; // performance.now()
  status: number; // HTTP status, 0 = no answer
  checks?: { bus: boolean; cache: boolean; database: boolean };
}

export function watchReadiness(url: string, everyMs = 250) {
  const changes: ReadinessSample[] = [];
  let last = '';
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const at = performance.now();
      let s: ReadinessSample;
      try {
        const r = await fetch(`${url}/api/telemetry/readyz`, { signal: AbortSignal.timeout(3000) });
        const body = (await r.json()) as { checks?: ReadinessSample['checks'] };
        s = { at, status: r.status, checks: body.checks };
      } catch {
        s = { at, status: 0 };
      }
      const key = `${s.status}:${JSON.stringify(s.checks ?? null)}`;
      if (key !== last) {
        changes.push(s);
        last = key;
      }
      await sleep(Math.max(0, everyMs - (performance.now() - at)));
    }
  })();
  return {
    changes,
    /** First change at or after `from` where pred holds; its time, or undefined. */
    firstAfter(from: number, pred: (s: ReadinessSample) => boolean): number | undefined {
      // The state in force at `from` counts too (it may already satisfy pred).
      const before = changes.filter((c) => c.at <= from).at(-1);
      if (before && pred(before)) return from;
      return changes.find((c) => c.at > from && pred(c))?.at;
    },
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export function describeReadiness(s: ReadinessSample): string {
  if (s.status === 0) return 'no answer';
  const c = s.checks;
  return `${s.status} ${c ? `database=${c.database} cache=${c.cache} bus=${c.bus}` : ''}`.trim();
}
