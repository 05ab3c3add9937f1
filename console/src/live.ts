// The organisation's live stream (GET /api/live/events, server-sent events) read with fetch, so
// the token goes in the Authorization header rather than the address. Reconnects with backoff
// while signed in; the screens read current state from the API and then follow the stream.
import { accessToken, currentSession, onSession } from './api.ts';

export interface LiveTelemetry {
  received_at: string;
  records: Array<{ asset_id: string; ts: string; power_kw: number | null; soc_pct: number | null; status: string | null }>;
}
export interface LiveAlert {
  transition: 'raised' | 'resolved';
  alert: { id: string; title: string; severity: string; status: string };
}
type Handler = (event: string, data: any) => void;

const handlers = new Set<Handler>();
/** The newest live sample of each asset seen since sign-in, so a screen opened later shows it too. */
export const latestByAsset = new Map<string, LiveTelemetry['records'][number]>();
let state: 'off' | 'connecting' | 'live' | 'retrying' = 'off';
const stateListeners = new Set<(s: typeof state) => void>();
let controller: AbortController | null = null;

export const liveState = () => state;
export function onLiveState(fn: (s: typeof state) => void) {
  stateListeners.add(fn);
  return () => stateListeners.delete(fn);
}
function setState(s: typeof state) {
  state = s;
  for (const l of stateListeners) l(s);
}

export function subscribe(fn: Handler): () => void {
  handlers.add(fn);
  return () => handlers.delete(fn);
}

function dispatch(block: string) {
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) continue;
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (!data.length) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.join('\n'));
  } catch {
    return;
  }
  if (event === 'ready') setState('live');
  if (event === 'telemetry') {
    for (const r of (parsed as LiveTelemetry).records) {
      const had = latestByAsset.get(r.asset_id);
      if (!had || had.ts <= r.ts) latestByAsset.set(r.asset_id, r);
    }
  }
  for (const h of handlers) h(event, parsed);
}

async function run(signal: AbortSignal) {
  let delay = 1000;
  while (!signal.aborted && currentSession()) {
    setState('connecting');
    try {
      const res = await fetch('/api/live/events', {
        headers: { authorization: `Bearer ${await accessToken()}`, accept: 'text/event-stream' },
        signal,
        credentials: 'omit',
        cache: 'no-store',
      });
      if (!res.ok || !res.body) throw new Error(String(res.status));
      delay = 1000;
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value.replace(/\r\n?/g, '\n');
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          dispatch(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      if (signal.aborted) break;
    }
    if (signal.aborted || !currentSession()) break;
    setState('retrying');
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 30_000);
  }
  setState('off');
}

onSession((s) => {
  controller?.abort();
  controller = null;
  latestByAsset.clear();
  if (s) {
    controller = new AbortController();
    void run(controller.signal);
  }
});
