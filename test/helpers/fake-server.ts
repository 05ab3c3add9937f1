// A small HTTP server on loopback standing in for a third party (provider, IdP, webhook receiver).
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { Inbox } from './signal.ts';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type FakeHandler = (req: RecordedRequest, res: http.ServerResponse) => void | Promise<void>;

export interface FakeServer {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Resolves once `n` requests have arrived (before they are answered): no polling, no sleep. */
  received(n: number, what?: string): Promise<void>;
  /** Replace the handler while running. */
  handle(h: FakeHandler): void;
  close(): Promise<void>;
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  let current = handler;
  const inbox = new Inbox<RecordedRequest>();
  const requests = inbox.items as RecordedRequest[];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', async () => {
      const rec = { method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      inbox.push(rec);
      try {
        await current(rec, res);
      } catch {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    received: (n, what = `${n} request(s) at the fake server`) => inbox.count(n, what),
    handle: (h) => {
      current = h;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** A receiver that accepts TCP connections and never answers (a dead webhook receiver). */
export interface SilentServer {
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  /** Resolves once `n` connections have been accepted. */
  acceptedAtLeast(n: number, what?: string): Promise<void>;
  /** Most connections open at one time. */
  peak(): number;
  close(): Promise<void>;
}

export async function startSilentServer(): Promise<SilentServer> {
  const sockets = new Set<import('node:net').Socket>();
  const open = new Set<import('node:net').Socket>();
  let accepted = 0;
  let peak = 0;
  const arrivals = new Inbox<true>();
  const server = net.createServer((s) => {
    accepted++;
    arrivals.push(true);
    sockets.add(s);
    open.add(s);
    // A connection is over when the client ends or drops it (not when this side's close completes,
    // which lags). Counted after this round of I/O, so a client's hang-up that arrived together
    // with its next connection is seen first.
    const over = () => open.delete(s);
    s.on('end', over)
      .on('error', over)
      .on('close', () => {
        over();
        sockets.delete(s);
      });
    setImmediate(() => {
      peak = Math.max(peak, open.size);
    });
    s.resume(); // read and drop the request; never write
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    acceptedAtLeast: (n, what = `${n} connection(s) at the silent server`) => arrivals.count(n, what),
    peak: () => peak,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
