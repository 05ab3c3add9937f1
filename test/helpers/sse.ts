// A server-sent event stream read through a real socket (fetch): its events as they arrive, a way
// to wait for one that matches, and whether the server ended it. A refusal comes back as it is
// (status and JSON body), without waiting for anything. Parsed by eventsource-parser, as the SDK
// and the console parse it (one SSE parser).
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { bounded } from './signal.ts';

export interface SseEvent {
  event: string;
  data: any;
}

export interface OpenStream {
  res: Response;
  events: SseEvent[];
  /** Resolves with the first event (so far or to come) that matches. */
  next(what: string, match: (e: SseEvent) => boolean): Promise<SseEvent>;
  /** Resolves when the server has ended the answer. */
  ended(what: string): Promise<void>;
  /** Closes the stream from the client's side. */
  close(): Promise<void>;
}

export async function openStream(base: string, token: string, path = '/api/live/events'): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const events: SseEvent[] = [];
  let waiters: Array<() => void> = [];
  let finished = false;
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const done =
    res.status !== 200
      ? Promise.resolve()
      : (async () => {
          const reader = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
          try {
            for (;;) {
              const { value, done } = await reader.read();
              if (done) return;
              if (value.event && value.data) events.push({ event: value.event, data: JSON.parse(value.data) });
              wake();
            }
          } catch {
            /* aborted */
          } finally {
            finished = true;
            wake();
          }
        })();
  async function next(what: string, match: (e: SseEvent) => boolean) {
    for (;;) {
      const found = events.find(match);
      if (found) return found;
      if (finished) throw new Error(`the stream ended without ${what}`);
      await bounded(new Promise<void>((r) => waiters.push(r)), `${what} on the live stream`);
    }
  }
  async function ended(what: string) {
    while (!finished) await bounded(new Promise<void>((r) => waiters.push(r)), what);
  }
  if (res.status === 200) await next('ready', (e) => e.event === 'ready');
  return { res, events, next, ended, close: async () => (controller.abort(), await done) };
}
