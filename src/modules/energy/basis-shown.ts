// The data basis a reader is shown (decision 0304). A demo organisation's figures rest on simulated
// devices and synthetic readings, so the basis members of its answers say `simulated` where a
// production organisation's would say `measured` or `calculated`; the coverage words (`partial`,
// `missing`, `absent`) still say how much of the half hour was covered. Stored rows keep how each
// figure was derived (counter or power), so nothing is rebuilt when the rule changes.
import { realmForId } from '../orgs/index.ts';

export type Shown = <T extends string | null | undefined>(basis: T) => T | 'simulated';

const asIs: Shown = (b) => b;
const simulated: Shown = (b) => (b === 'measured' || b === 'calculated' ? 'simulated' : b);

/** The basis mapping for an organisation's answers. */
export function basisShown(orgId: string): Shown {
  return realmForId(orgId) === 'demo' ? simulated : asIs;
}

/** A half hour's flow bases, mapped. */
export function flowBasesShown(orgId: string, bases: Record<string, string> | null): Record<string, string> | null {
  if (!bases || realmForId(orgId) !== 'demo') return bases;
  return Object.fromEntries(Object.entries(bases).map(([k, v]) => [k, simulated(v)]));
}

/** Whether an organisation's basis members read `simulated` (for figures computed in SQL). */
export const simulatedRealm = (orgId: string): boolean => realmForId(orgId) === 'demo';
