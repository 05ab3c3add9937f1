// Event bus: the live telemetry stream and domain events. In-process, or NATS JetStream.
// Subjects are dot-separated tokens; `*` matches one token and `>` the rest, as in NATS.

/**
 * A payload already written as JSON text (decision 0254): published as these bytes, delivered to
 * subscribers as what JSON.parse makes of them, exactly as an object payload would be after its
 * JSON.stringify. For a publisher that has the text anyway. The text may be given in parts (its
 * concatenation): a wire bus encodes each part into one buffer, so a large member (a batch's records)
 * is not first copied into a second string (decision 0268).
 */
export class JsonText {
  readonly parts: readonly string[];
  constructor(...parts: string[]) {
    this.parts = parts;
  }
  get text(): string {
    return this.parts.length === 1 ? this.parts[0] : this.parts.join('');
  }
}

/** The JSON text of a payload: JsonText as it is, anything else through JSON.stringify. */
export function payloadJson(payload: unknown): string {
  return payload instanceof JsonText ? payload.text : JSON.stringify(payload);
}

/** The UTF-8 bytes of payloadJson(payload); a JsonText's parts are written into one buffer in turn. */
export function payloadBytes(payload: unknown): Uint8Array {
  if (!(payload instanceof JsonText)) return Buffer.from(JSON.stringify(payload), 'utf8');
  let size = 0;
  for (const part of payload.parts) size += Buffer.byteLength(part, 'utf8');
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of payload.parts) at += out.write(part, at, 'utf8');
  return out;
}

export type BusHandler = (payload: unknown, subject: string) => void | Promise<void>;

/** How long `publishRetrying` tries, and how long its caller waits (decision 0488). */
export interface RetryingPublishOptions {
  /** The caller waits at most this long for the bus to accept the message (not at all while it is disconnected). */
  waitMs: number;
  /** Tries go on (in the background past `waitMs`) until this long after the call; then the message is dropped. */
  retryForMs: number;
}

/** What became of a `publishRetrying` within the caller's wait, and after. */
export interface RetryingPublish {
  /** Accepted by the bus within the wait. */
  accepted: boolean;
  /** True once accepted (at once when `accepted`), false when given up (the bound passed, the bus closed, or no room). */
  settled: Promise<boolean>;
}

export interface Bus {
  readonly kind: 'memory' | 'nats';
  /** Resolves once the bus has accepted the message (JetStream: stored by the server). A JsonText is sent as its text. */
  publish(subject: string, payload: unknown): Promise<void>;
  /**
   * Publishes, trying again when the bus refuses it while it fails over (the client disconnected
   * or moving to another server, the stream's leader being elected, no answer in time) with the
   * same message id, so the stream keeps one copy whichever try it was. For the live stream: a
   * record published late is still worth having; a command is not (it uses `publish`).
   */
  publishRetrying(subject: string, payload: unknown, opts: RetryingPublishOptions): Promise<RetryingPublish>;
  /** Delivers messages published after the call. Returns a function that stops delivery. */
  subscribe(subject: string, handler: BusHandler): Promise<() => Promise<void>>;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class BusUnavailableError extends Error {}

/**
 * The bus with every subscriber's handler guarded: what a handler throws (synchronously or by
 * rejecting) goes to `failed` and is not delivered further; the adapter's own delivery goes on.
 */
export function reportingBus(bus: Bus, failed: (subject: string, err: unknown) => void): Bus {
  return {
    get kind() {
      return bus.kind;
    },
    publish: (subject, payload) => bus.publish(subject, payload),
    publishRetrying: (subject, payload, opts) => bus.publishRetrying(subject, payload, opts),
    subscribe: (subject, handler) =>
      bus.subscribe(subject, async (payload, s) => {
        try {
          await handler(payload, s);
        } catch (err) {
          failed(s, err);
        }
      }),
    ping: (timeoutMs) => bus.ping(timeoutMs),
    close: () => bus.close(),
  };
}

export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length) return false;
    if (p[i] !== '*' && p[i] !== s[i]) return false;
  }
  return p.length === s.length;
}
