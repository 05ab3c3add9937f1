// A TCP fault proxy on loopback (Toxiproxy is not installable here): listens on 127.0.0.1:<port>
// and forwards to a target, with modes switched at run time:
//   pass       forward both ways
//   latency    delay every chunk by `ms`
//   stall      accept and hold connections, forward nothing
//   blackhole  forward nothing and drop what arrives (existing connections included)
//   reset      destroy every connection, new ones at once
import net from 'node:net';

export type FaultMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'stall' } | { kind: 'blackhole' } | { kind: 'reset' };

/** A chunk the proxy saw: from which side, and what became of it under the mode of the moment. */
export interface ChunkEvent {
  from: 'client' | 'upstream';
  chunk: Buffer;
  fate: 'forwarded' | 'delayed' | 'dropped';
}

export interface FaultProxy {
  port: number;
  /** Calls `fn` for every chunk (tests wait on it instead of sleeping); returns a function that stops it. */
  watch(fn: (e: ChunkEvent) => void): () => void;
  url(scheme: string, path?: string): string;
  set(mode: FaultMode): void;
  readonly mode: FaultMode;
  connections(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }, listenPort = 0): Promise<FaultProxy> {
  let mode: FaultMode = { kind: 'pass' };
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const watchers = new Set<(e: ChunkEvent) => void>();

  const pipe = (from: net.Socket, to: net.Socket, side: ChunkEvent['from']) => {
    from.on('data', (chunk: Buffer) => {
      const m = mode;
      const fate = m.kind === 'stall' || m.kind === 'blackhole' ? 'dropped' : m.kind === 'latency' ? 'delayed' : 'forwarded';
      if (m.kind === 'latency') setTimeout(() => to.writable && to.write(chunk), m.ms);
      else if (fate === 'forwarded' && to.writable) to.write(chunk);
      for (const w of watchers) w({ from: side, chunk, fate });
    });
  };

  const server = net.createServer((client) => {
    if (mode.kind === 'reset') {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    pipe(client, upstream, 'client');
    pipe(upstream, client, 'upstream');
  });
  await new Promise<void>((r) => server.listen(listenPort, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    watch(fn) {
      watchers.add(fn);
      return () => void watchers.delete(fn);
    },
    url: (scheme, path = '') => `${scheme}://127.0.0.1:${port}${path}`,
    get mode() {
      return mode;
    },
    set(m) {
      mode = m;
      if (m.kind === 'reset')
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
    },
    connections: () => pairs.size,
    close: () =>
      new Promise<void>((r) => {
        for (const p of pairs) {
          p.client.destroy();
          p.upstream.destroy();
        }
        server.close(() => r());
      }),
  };
}
