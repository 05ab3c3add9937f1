// Authorisation (decision 0410, superseding decision 0171's "every tag is accepted"): a token a
// charger presents is answered from the organisation's id tokens, unless the charger's site has
// chosen free vend, when every token (and a transaction without one) is accepted. The verdict says
// which applied; the transaction keeps it with the status answered.
import type { Db } from '../../../infra/db/index.ts';
import type { Clock } from '../../../platform/clock.ts';
import { type IdTokenRow, hubStore as store } from '../store.ts';
import type { ChargerSession } from './context.ts';
import type { IdTagInfo } from './generated/v16.ts';
import type { IdTokenInfoType } from './generated/v201.ts';

/** The status in OCPP terms (2.0.1's; 1.6 has no Unknown: an unknown tag is Invalid there). */
export type TokenStatus = 'Accepted' | 'Blocked' | 'Expired' | 'Invalid' | 'Unknown';

export interface Verdict {
  /** id_token: checked against the organisation's tokens; free_vend: the site accepts every token. */
  authorisation: 'id_token' | 'free_vend';
  status: TokenStatus;
  /** Until when an accepted token holds (a hint for the charger's cache), if the token has an expiry. */
  expiresAt: Date | null;
  groupId: string | null;
}

export interface Authoriser {
  /** The verdict on a token at the charger's site (null token: none presented). */
  check(s: ChargerSession, idToken: string | null): Promise<Verdict>;
}

const STATUS: Record<'accepted' | 'blocked' | 'expired' | 'invalid', TokenStatus> = {
  accepted: 'Accepted',
  blocked: 'Blocked',
  expired: 'Expired',
  invalid: 'Invalid',
};

/** The verdict on a held token at `now` (an accepted token past its expiry is Expired; its stored status is left as set). */
export function verdictOf(t: IdTokenRow, now: Date): Verdict {
  const expired = t.expires_at !== null && t.expires_at.getTime() <= now.getTime();
  const status = t.status === 'accepted' && expired ? 'Expired' : STATUS[t.status];
  return { authorisation: 'id_token', status, expiresAt: t.expires_at, groupId: t.group_id };
}

export function createAuthoriser(deps: { db: Db; clock: Clock }): Authoriser {
  const { db, clock } = deps;
  return {
    async check(s, idToken) {
      if (await store.freeVend(db, s.orgId, s.siteId)) return { authorisation: 'free_vend', status: 'Accepted', expiresAt: null, groupId: null };
      if (idToken === null) return { authorisation: 'id_token', status: 'Unknown', expiresAt: null, groupId: null };
      const t = await store.idToken(db, s.orgId, idToken);
      if (!t) return { authorisation: 'id_token', status: 'Unknown', expiresAt: null, groupId: null };
      return verdictOf(t, clock.now());
    },
  };
}

/** The verdict as 1.6 answers it (Authorize, StartTransaction, StopTransaction). */
export function status16(v: Verdict): IdTagInfo['status'] {
  return v.status === 'Unknown' ? 'Invalid' : v.status;
}
export function idTagInfo16(v: Verdict): IdTagInfo {
  return {
    status: status16(v),
    ...(v.status === 'Accepted' && v.expiresAt && { expiryDate: v.expiresAt.toISOString() }),
    ...(v.groupId !== null && { parentIdTag: v.groupId }),
  };
}

/** The verdict as 2.0.1 answers it (Authorize, TransactionEvent). */
export function idTokenInfo201(v: Verdict): IdTokenInfoType {
  return {
    status: v.status,
    ...(v.status === 'Accepted' && v.expiresAt && { cacheExpiryDateTime: v.expiresAt.toISOString() }),
    ...(v.groupId !== null && { groupIdToken: { idToken: v.groupId, type: 'Central' as const } }),
  };
}
