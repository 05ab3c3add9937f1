// Webhook signing secrets: `whsec_<base64 of 32 random bytes>`; the HMAC key is the decoded bytes
// (as Standard Webhooks does). They must be usable to sign, so they are stored encrypted with
// AES-256-GCM under a key derived from the service secret (docs/decisions/0083).
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const newSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export function secretKeyBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** Platform-Signature value: t=<unix seconds>,v1=<base64 HMAC-SHA256 of "<t>.<raw body>"> (one v1 per secret). */
export function signatureHeader(body: string, unixSeconds: number, secrets: string[]): string {
  const sigs = secrets.map((s) => `v1=${createHmac('sha256', secretKeyBytes(s)).update(`${unixSeconds}.${body}`, 'utf8').digest('base64')}`);
  return [`t=${unixSeconds}`, ...sigs].join(',');
}

export function createSecretBox(serviceSecret: string) {
  const key = createHmac('sha256', serviceSecret).update('webhook-signing-secret-v1').digest();
  return {
    seal(plain: string): string {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), ct.toString('base64')].join('.');
    },
    open(sealed: string): string {
      const [v, iv, tag, ct] = sealed.split('.');
      if (v !== 'v1') throw new Error('unknown secret box version');
      const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      d.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8');
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
