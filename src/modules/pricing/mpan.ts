// The MPAN core: 13 digits, the distributor id (2), a supply number (8), two more digits and a
// check digit. Check digit = (sum of the first 12 digits times 3, 5, 7, 13, 17, 19, 23, 29, 31, 37,
// 41, 43 in turn) mod 11 mod 10 (../shared/upstreams.md section 5.11).
import { distributorOf, type Distributor } from './distributors.ts';

const PRIMES = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

/** The check digit the first 12 digits call for. */
export function mpanCheckDigit(first12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += PRIMES[i] * (first12.charCodeAt(i) - 48);
  return (sum % 11) % 10;
}

export type MpanResult = { ok: true; core: string; distributor: Distributor } | { ok: false; reason: string };

/** A 13-digit MPAN core (spaces allowed between groups), checked: digits, check digit, distributor. */
export function parseMpanCore(raw: string): MpanResult {
  const core = raw.replace(/\s+/g, '');
  if (!/^\d{13}$/.test(core)) return { ok: false, reason: 'An MPAN core is exactly 13 digits' };
  const expected = mpanCheckDigit(core.slice(0, 12));
  if (expected !== Number(core[12])) return { ok: false, reason: `Check digit does not match: the first 12 digits call for ${expected}` };
  const distributor = distributorOf(core.slice(0, 2));
  if (!distributor) return { ok: false, reason: `Unknown distributor id ${core.slice(0, 2)}` };
  return { ok: true, core, distributor };
}
