// Consecutive failed logins per email, known account or not, in Postgres so that every instance
// sees the same count. Sign-in happens before any organisation is known, so this table (like the
// users table) is keyed by email, not by organisation.
import type { Queryable } from '../../infra/db/index.ts';

export const LOCKOUT_THRESHOLD = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;

export const emailKey = (email: string) => email.trim().toLowerCase();

export function createLockoutStore(db: Queryable) {
  return {
    /** The end of a lock in force at `now`, or null. */
    async lockedUntil(email: string, now: Date): Promise<Date | null> {
      const r = await db.query<{ locked_until: Date | null }>('select locked_until from login_failures where email_key = $1', [emailKey(email)]);
      const until = r.rows[0]?.locked_until ?? null;
      return until && until.getTime() > now.getTime() ? until : null;
    },

    /**
     * Counts one failure atomically. A lock that has run out starts the count again. Returns the
     * count and whether this failure is the one that locked the account.
     */
    async recordFailure(email: string, now: Date): Promise<{ failures: number; lockedNow: boolean }> {
      const until = new Date(now.getTime() + LOCKOUT_MS);
      const r = await db.query<{ failures: number }>(
        `insert into login_failures as f (email_key, failures, locked_until, updated_at)
         values ($1, 1, case when 1 >= $3 then $4::timestamptz end, $2)
         on conflict (email_key) do update set
           failures = case when f.locked_until is not null and f.locked_until <= $2 then 1 else f.failures + 1 end,
           locked_until = case
             when (case when f.locked_until is not null and f.locked_until <= $2 then 1 else f.failures + 1 end) >= $3
             then $4::timestamptz end,
           updated_at = $2
         returning failures`,
        [emailKey(email), now, LOCKOUT_THRESHOLD, until],
      );
      const failures = Number(r.rows[0].failures);
      return { failures, lockedNow: failures === LOCKOUT_THRESHOLD };
    },

    /** A successful sign-in ends the run of failures. */
    async reset(email: string): Promise<void> {
      await db.query('delete from login_failures where email_key = $1', [emailKey(email)]);
    },
  };
}
