// A live-stream subscriber for the runs: GET /api/live/events (server-sent events) on one service
// instance, reconnecting whenever the connection ends (an instance killed or drained), so a run can
// check that records stored by any instance reach the subscribers of every instance. Each `ready`
// event starts a subscription; the stored records of each `telemetry` event are kept by key.
import http from 'node:http';

export interface LiveWatch {
  name: string;
  /** performance.now() of each `ready` event (one per subscription, the last is the current one). */
  readyAt: number[];
  /** `asset_id|ts` of every stored record received. */
  keys: Set<string>;
  /** Telemetry events received. */
  events: number;
  close(): void;
}

export const liveKey = (r: { asset_id: string; ts: string }) => `${r.asset_id}|${r.ts}`;

export function watchLive(name: string, baseUrl: string, token: string, retryMs = 300): LiveWatch {
  const w: LiveWatch = { name, readyAt: [], keys: new Set(), events: 0, close: () => {} };
  let closed = false;
  let current: http.ClientRequest | undefined;
  const dispatch = (event: string, data: string) => {
    if (event === 'ready') w.readyAt.push(performance.now());
    if (event !== 'telemetry') return;
    const e = JSON.parse(data) as { stored: boolean; records: { asset_id: string; ts: string }[] };
    w.events++;
    if (e.stored) for (const r of e.records) w.keys.add(liveKey(r));
  };
  const connect = () => {
    if (closed) return;
    const again = () => {
      current = undefined;
      if (!closed) setTimeout(connect, retryMs).unref();
    };
    current = http.get(`${baseUrl}/api/live/events`, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        res.once('end', again);
        return;
      }
      // The text/event-stream format: fields until a blank line ends the event; ':' starts a comment.
      res.setEncoding('utf8');
      let buf = '';
      let event = 'message';
      let data: string[] = [];
      res.on('data', (chunk: string) => {
        buf += chunk;
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).replace(/\r$/, '');
          buf = buf.slice(nl + 1);
          if (line === '') {
            if (data.length) dispatch(event, data.join('\n'));
            event = 'message';
            data = [];
          } else if (line.startsWith(':')) continue;
          else {
            const i = line.indexOf(':');
            const field = i < 0 ? line : line.slice(0, i);
            const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
            if (field === 'event') event = value;
            else if (field === 'data') data.push(value);
          }
        }
      });
      res.once('close', again);
    });
    current.once('error', again);
  };
  connect();
  w.close = () => {
    closed = true;
    current?.destroy();
  };
  return w;
}
