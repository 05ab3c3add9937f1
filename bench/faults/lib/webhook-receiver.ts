// A webhook receiver on loopback for the fault runs and the cluster benchmark: records the event id
// of every delivery (the `platform-event-id` header, else the body's `id`; '' if neither) with the
// time it arrived, answers 200 (after `delayMs()` if given), and is closed at clean-up.
import http from 'node:http';
import { onCleanup } from './servers.ts';

export interface WebhookReceiver {
  /** The address to register as the webhook endpoint. */
  url: string;
  /** Every delivery's event id, in arrival order (an id delivered twice is here twice). */
  ids: string[];
  /** The same deliveries with their arrival time (performance.now()). */
  receipts: { id: string; at: number }[];
}

export async function startWebhookReceiver(opts: { delayMs?: () => number } = {}): Promise<WebhookReceiver> {
  const ids: string[] = [];
  const receipts: { id: string; at: number }[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let id = String(req.headers['platform-event-id'] ?? '');
      try {
        id ||= JSON.parse(Buffer.concat(chunks).toString()).id;
      } catch {
        /* recorded as '' */
      }
      ids.push(id);
      receipts.push({ id, at: performance.now() });
      const answer = () => res.writeHead(200).end('ok');
      if (opts.delayMs) setTimeout(answer, opts.delayMs());
      else answer();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  onCleanup('receiver', () => new Promise<void>((r) => receiver.close(() => r())));
  return { url: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`, ids, receipts };
}
