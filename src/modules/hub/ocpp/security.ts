// OCPP security profiles (decisions 0430-0431): what a connection proved at its handshake, and
// whether that is enough for the charge point. Profile 1: HTTP Basic; 2: HTTP Basic over TLS (the
// hub's TLS listener, or a proxy in TRUST_PROXY that says X-Forwarded-Proto https); 3: TLS with a
// client certificate issued by one of the organisation's charger CAs, naming the charge point in
// its subject's CN. A charger is accepted at its registered profile or above, never below.
import { X509Certificate } from 'node:crypto';
import type { ChargerCaRow, SecurityProfile } from '../store.ts';

/** TLS Web Client Authentication (RFC 5280 extended key usage). */
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

/** The CN values of a subject as node:crypto writes it (one `KEY=value` a line; a multi-valued RDN joined by `+`). */
export function commonNames(subject: string): string[] {
  return subject
    .split('\n')
    .flatMap((line) => line.split('+'))
    .filter((part) => part.startsWith('CN='))
    .map((part) => part.slice(3));
}

/** A CA certificate as the organisation stored it, parsed once per check. */
function parsed(ca: ChargerCaRow): X509Certificate | null {
  try {
    return new X509Certificate(ca.certificate_pem);
  } catch {
    return null;
  }
}

const within = (c: X509Certificate, now: Date) => new Date(c.validFrom) <= now && now <= new Date(c.validTo);

/**
 * Whether a client certificate the TLS handshake proved (the charger holds its key) is one of the
 * organisation's for this charge point: signed by one of its CAs (directly: the CA uploaded may be
 * an issuing intermediate), both in their validity period, not itself a CA, for client
 * authentication when it says what it is for, and with the charge point id as a CN of its subject.
 */
export function certificateNamesChargePoint(leaf: X509Certificate, cas: readonly ChargerCaRow[], cpId: string, now: Date): boolean {
  if (leaf.ca || !within(leaf, now)) return false;
  const usage = leaf.keyUsage; // node:crypto's name for the extended key usage OIDs
  if (Array.isArray(usage) && usage.length > 0 && !usage.includes(CLIENT_AUTH)) return false;
  if (!commonNames(leaf.subject).includes(cpId)) return false;
  for (const row of cas) {
    const ca = parsed(row);
    if (!ca || !ca.ca || !within(ca, now)) continue;
    if (leaf.checkIssued(ca) && leaf.verify(ca.publicKey)) return true;
  }
  return false;
}

/** The profile a handshake reached: 3 with a certificate naming the charger, else 2 over TLS and 1 in clear with the right password; 0: none. */
export function profileReached(p: { tls: boolean; certificate: boolean; password: boolean }): 0 | SecurityProfile {
  if (p.tls && p.certificate) return 3;
  if (!p.password) return 0;
  return p.tls ? 2 : 1;
}
