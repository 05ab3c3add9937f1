// A TCP fault proxy on loopback (Toxiproxy is not installable here): listens on 127.0.0.1:<port>
// and forwards to a target, with modes switched at run time:
//   pass       forward both ways
//   latency    delay every chunk by `ms`
//   stall      accept and hold connections, forward nothing
//   blackhole  forward nothing and drop what arrives (existing connections included)
//   reset      destroy every connection, new ones at once
import net from 'node:net';

export type FaultMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'stall' } | { kind: 'blackhole' } | { kind: 'reset' };

export interface FaultProxy {
  port: number;
  url(scheme: string, path?: string): string;
  set(mode: FaultMode): void;
  readonly mode: FaultMode;
  connections(): number;
  close(): Promise<void>;
}

export async function startFaultProxy(target: { host: string; port: number }, listenPort = 0): Promise<FaultProxy> {
  let mode: FaultMode = { kind: 'pass' };
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();

  const pipe = (from: net.Socket, to: net.Socket) => {
    from.on('data', (chunk) => {
      const m = mode;
      if (m.kind === 'stall' || m.kind === 'blackhole') return; // dropped
      if (m.kind === 'latency') setTimeout(() => to.writable && to.write(chunk), m.ms);
      else if (to.writable) to.write(chunk);
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
    pipe(client, upstream);
    pipe(upstream, client);
  });
  await new Promise<void>((r) => server.listen(listenPort, '127.0.0.1', () => r()));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: (scheme, path = '') => `${scheme}://127.0.0.1:${port}${path}`,
    get mode() {
      return mode;
    },
    set(m) {
      mode = m;
      if (m.kind === 'reset') for (const p of pairs) {
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
