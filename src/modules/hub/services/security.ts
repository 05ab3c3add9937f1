// OCPP security profiles (decisions 0430-0431): the organisation's charger certificate authorities
// (profile 3: the CAs whose certificates the TLS listener accepts for its chargers) and each charge
// point's registered profile. Writes are audited.
import { X509Certificate } from 'node:crypto';
import type { RequestContext } from '../../../platform/operation.ts';
import { isoTime } from '../../../platform/schema-kit.ts';
import { hubErrors } from '../errors.ts';
import { type ChargerCaRow, type SecurityProfile, hubStore as store } from '../store.ts';
import type { HubDeps } from './shared.ts';

/** CA certificates an organisation may hold at once (a CA and its successor while chargers move over, with room to spare). */
export const MAX_CHARGER_CAS = 5;
const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

export function chargerCaView(r: ChargerCaRow) {
  return {
    fingerprint_sha256: r.fingerprint_sha256,
    subject: r.subject,
    not_before: isoTime(r.not_before),
    not_after: isoTime(r.not_after),
    certificate_pem: r.certificate_pem,
    created_at: isoTime(r.created_at),
  };
}

/** The CA certificates of an uploaded PEM bundle, each checked; a 422 naming what is wrong otherwise. */
export function parseCaBundle(pem: string, now: Date): Omit<ChargerCaRow, 'created_at'>[] {
  const bad = (msg: string) => hubErrors.field(['certificate_pem'], msg, null);
  const blocks = [...pem.matchAll(PEM_BLOCK)];
  // A key must never be sent here (and is never stored): refused rather than ignored.
  if (blocks.some((b) => b[1].includes('PRIVATE KEY')) || /PRIVATE KEY-----/.test(pem)) throw bad('Contains a private key: send the CA certificate only');
  const certs = blocks.filter((b) => b[1] === 'CERTIFICATE');
  if (certs.length === 0) throw bad('No PEM certificate (-----BEGIN CERTIFICATE-----) found');
  if (certs.length !== blocks.length) throw bad('Only CERTIFICATE blocks are accepted');
  if (certs.length > MAX_CHARGER_CAS) throw bad(`At most ${MAX_CHARGER_CAS} CA certificates`);
  const out = new Map<string, Omit<ChargerCaRow, 'created_at'>>();
  for (const [i, b] of certs.entries()) {
    let c: X509Certificate;
    try {
      c = new X509Certificate(b[0]);
    } catch {
      throw bad(`Certificate ${i + 1} cannot be read`);
    }
    if (!c.ca) throw bad(`Certificate ${i + 1} is not a CA certificate (basicConstraints CA:TRUE)`);
    const notAfter = new Date(c.validTo);
    if (notAfter <= now) throw bad(`Certificate ${i + 1} expired at ${notAfter.toISOString()}`);
    const fingerprint = c.fingerprint256.replaceAll(':', '').toLowerCase();
    out.set(fingerprint, {
      fingerprint_sha256: fingerprint,
      certificate_pem: c.toString(),
      subject: c.subject.replaceAll('\n', ', '),
      not_before: new Date(c.validFrom),
      not_after: notAfter,
    });
  }
  return [...out.values()];
}

export function createSecurityService(deps: HubDeps) {
  const { db, clock } = deps;
  return {
    async getChargerCas(ctx: RequestContext) {
      return { certificates: (await store.chargerCas(db, ctx.orgId)).map(chargerCaView) };
    },

    async putChargerCas(ctx: RequestContext, body: { certificate_pem: string }) {
      const cas = parseCaBundle(body.certificate_pem, clock.now());
      return db.tx(async (q) => {
        await store.replaceChargerCas(q, ctx.orgId, cas, clock.now());
        await deps.audit.record(q, ctx, {
          action: 'hub.charger_ca.replace',
          targetType: 'hub_charger_ca',
          targetId: ctx.orgId,
          details: { fingerprints_sha256: cas.map((c) => c.fingerprint_sha256) },
        });
        return { certificates: (await store.chargerCas(q, ctx.orgId)).map(chargerCaView) };
      });
    },

    async deleteChargerCas(ctx: RequestContext) {
      await db.tx(async (q) => {
        if ((await store.deleteChargerCas(q, ctx.orgId)) === 0) throw hubErrors.chargerCaNotFound();
        await deps.audit.record(q, ctx, { action: 'hub.charger_ca.delete', targetType: 'hub_charger_ca', targetId: ctx.orgId, details: {} });
      });
    },

    async setSecurityProfile(ctx: RequestContext, cpId: string, body: { security_profile: SecurityProfile }) {
      return db.tx(async (q) => {
        const before = await store.chargePoint(q, ctx.orgId, cpId);
        if (!before) throw hubErrors.chargePointNotFound();
        if (body.security_profile === 3 && (await store.chargerCas(q, ctx.orgId)).length === 0) throw hubErrors.noChargerCa();
        const row = (await store.setSecurityProfile(q, ctx.orgId, cpId, body.security_profile))!;
        await deps.audit.record(q, ctx, {
          action: 'hub.charge_point.security_profile',
          targetType: 'hub_charge_point',
          targetId: cpId,
          details: { from: before.security_profile, to: row.security_profile },
        });
        return { charge_point_id: row.charge_point_id, security_profile: row.security_profile };
      });
    },
  };
}
