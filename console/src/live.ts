// The organisation's live stream (GET /api/live/events, server-sent events) through the SDK
// (`telemetry.stream`: fetch, so the token goes in the Authorization header rather than the
// address, and eventsource-parser). Reconnects with backoff while signed in; the screens read
// current state from the API and then follow the stream.
import { currentSession, onSession, sdk, type LiveStreamEvent, type LiveTelemetryRecord } from './api.ts';

export type { LiveStreamEvent, LiveTelemetryRecord };
type Handler = (event: LiveStreamEvent) => void;

const handlers = new Set<Handler>();
/** The newest live sample of each asset seen since sign-in, so a screen opened later shows it too. */
export const latestByAsset = new Map<string, LiveTelemetryRecord>();
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

function dispatch(e: LiveStreamEvent) {
  if (e.event === 'ready') setState('live');
  if (e.event === 'telemetry') {
    for (const r of e.data.records) {
      const had = latestByAsset.get(r.asset_id);
      if (!had || had.ts <= r.ts) latestByAsset.set(r.asset_id, r);
    }
  }
  for (const h of handlers) h(e);
}

async function run(signal: AbortSignal) {
  let delay = 1000;
  while (!signal.aborted && currentSession()) {
    setState('connecting');
    try {
      for await (const e of sdk().telemetry.stream({ signal })) {
        delay = 1000;
        dispatch(e);
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
