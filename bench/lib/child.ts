// Starts bench/lib/service-child.ts (the whole service) in its own process, pinned to core 0 with
// taskset when it exists, and talks to it over IPC.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Child {
  proc: ChildProcess;
  address: string;
  pinned: boolean;
  request<T>(msg: Record<string, unknown>, reply: string): Promise<T>;
  stop(): Promise<void>;
}

/** As in package.json's start script. */
export const SERVICE_NODE_ARGS = ['--max-semi-space-size=32', '--no-allocation-site-pretenuring'];

export function hasTaskset(): boolean {
  return spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
}

export async function startChild(env: Record<string, string>, log: (s: string) => void, opts: { pin?: boolean } = {}): Promise<Child> {
  const script = fileURLToPath(new URL('./service-child.ts', import.meta.url));
  const pinned = opts.pin !== false && hasTaskset();
  // The V8 flags `npm start` runs the service with (package.json, decisions 0256 and 0268), then
  // BENCH_NODE_ARGS (e.g. --cpu-prof, or --max-semi-space-size=16 to override) for diagnosis.
  const nodeArgs = [...SERVICE_NODE_ARGS, ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
  const cmd = pinned ? 'taskset' : process.execPath;
  const argv = pinned ? ['-c', '0', process.execPath, ...nodeArgs, script] : [...nodeArgs, script];
  const proc = spawn(cmd, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise<{ address: string; store: string; bus: string; cache: string; rss: number }>((resolve, reject) => {
    proc.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
    proc.on('message', (m: any) => m.type === 'ready' && resolve(m));
  });
  log(
    `service: pid ${proc.pid}${pinned ? ' pinned to core 0' : ''}, ${ready.address}, store ${ready.store}, cache ${ready.cache}, ` +
      `bus ${ready.bus}, RSS at ready ${Math.round(ready.rss / 1024 / 1024)} MiB`,
  );
  const request = <T>(msg: Record<string, unknown>, reply: string) =>
    new Promise<T>((resolve) => {
      const on = (m: any) => {
        if (m.type === reply) {
          proc.off('message', on);
          resolve(m as T);
        }
      };
      proc.on('message', on);
      proc.send(msg);
    });
  return {
    proc,
    address: ready.address,
    pinned,
    request,
    async stop() {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.send({ type: 'stop' });
      await exited;
    },
  };
}
