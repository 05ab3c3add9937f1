// Event bus: the live telemetry stream and domain events. In-process, or NATS JetStream.
// Subjects are dot-separated tokens; `*` matches one token and `>` the rest, as in NATS.

export type BusHandler = (payload: unknown, subject: string) => void | Promise<void>;

export interface Bus {
  readonly kind: 'memory' | 'nats';
  /** Resolves once the bus has accepted the message (JetStream: stored by the server). */
  publish(subject: string, payload: unknown): Promise<void>;
  /** Delivers messages published after the call. Returns a function that stops delivery. */
  subscribe(subject: string, handler: BusHandler): Promise<() => Promise<void>>;
  ping(timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

export class BusUnavailableError extends Error {}

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
