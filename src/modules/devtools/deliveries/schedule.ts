// Delivery schedule (concepts.md section 6, rule 5): 8 attempts, nominally at 10 s, 30 s, 2 min,
// 10 min, 1 h, 3 h, 8 h and 20 h after the delivery was queued, each with ±10% jitter; a
// Retry-After answer pushes the next attempt back (up to 24 h); an endpoint failing continuously
// for 72 hours is disabled.
export const ATTEMPT_OFFSETS_MS = [10e3, 30e3, 120e3, 600e3, 3_600e3, 10_800e3, 28_800e3, 72_000e3];
export const MAX_ATTEMPTS = ATTEMPT_OFFSETS_MS.length;
export const JITTER = 0.1;
export const DISABLE_AFTER_MS = 72 * 3_600e3;
const MAX_RETRY_AFTER_MS = 24 * 3_600e3;

const jittered = (ms: number, rnd: () => number) => Math.round(ms * (1 + (rnd() * 2 - 1) * JITTER));

/** When the first attempt of a delivery queued at `queuedAt` is due. */
export function firstAttemptAt(queuedAt: Date, rnd: () => number = Math.random): Date {
  return new Date(queuedAt.getTime() + jittered(ATTEMPT_OFFSETS_MS[0], rnd));
}

/**
 * When attempt `made + 1` is due after `made` attempts failed, or null when none is left. A late
 * run (service down, queue behind) does not bunch the rest together: the next attempt is at least
 * half the nominal gap after this one.
 */
export function nextAttemptAt(queuedAt: Date, made: number, now: Date, retryAfterMs: number | null, rnd: () => number = Math.random): Date | null {
  if (made >= MAX_ATTEMPTS) return null;
  const nominal = queuedAt.getTime() + jittered(ATTEMPT_OFFSETS_MS[made], rnd);
  const gap = ATTEMPT_OFFSETS_MS[made] - ATTEMPT_OFFSETS_MS[made - 1];
  let at = Math.max(nominal, now.getTime() + gap / 2);
  if (retryAfterMs !== null) at = Math.max(at, now.getTime() + Math.min(retryAfterMs, MAX_RETRY_AFTER_MS));
  return new Date(at);
}

/** Retry-After as milliseconds from now (delta seconds or an HTTP date); null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now.getTime());
}
