// Webhook signature verification for receivers (no dependencies beyond node:crypto).
//
//   import { verifyWebhook } from '@energy-platform/sdk/verify-webhook';   (or from '@energy-platform/sdk')
//   const event = verifyWebhook({ body: rawBody, signature: req.headers['platform-signature'], secret });
//
// Platform-Signature: t=<unix seconds>,v1=<base64 HMAC-SHA256 of "<t>.<raw body>">. The HMAC key
// is the base64-decoded part of the signing secret after `whsec_`. During a secret rotation the
// header carries one v1= per secret; any match is valid. Verify the raw bytes before parsing.
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {}

export interface VerifyOptions {
  /** The raw request body exactly as received (string or bytes), before any JSON parsing. */
  body: string | Uint8Array;
  /** The Platform-Signature header value. */
  signature: string | string[] | undefined;
  /** The endpoint's signing secret (`whsec_...`); several during your own rotation. */
  secret: string | string[];
  /** Largest accepted distance between t and now, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Now, for tests. */
  now?: Date;
}

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  type: string;
  created_at: string;
  organisation_id: string;
  api_version: string;
  data: T;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** True when the signature is valid and fresh; never throws. */
export function isValidWebhookSignature(opts: VerifyOptions): boolean {
  const header = Array.isArray(opts.signature) ? opts.signature[0] : opts.signature;
  if (!header) return false;
  let t: string | undefined;
  const given: Buffer[] = [];
  for (const part of header.split(',')) {
    const [k, ...rest] = part.trim().split('=');
    const v = rest.join('=');
    if (k === 't') t = v;
    else if (k === 'v1' && v) given.push(Buffer.from(v, 'base64'));
  }
  if (!t || !/^\d{1,12}$/.test(t) || given.length === 0) return false;
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - Number(t)) > (opts.toleranceSeconds ?? 300)) return false;
  const body = typeof opts.body === 'string' ? Buffer.from(opts.body, 'utf8') : Buffer.from(opts.body);
  const secrets = Array.isArray(opts.secret) ? opts.secret : [opts.secret];
  let ok = false;
  for (const s of secrets) {
    const expected = createHmac('sha256', keyOf(s)).update(`${t}.`).update(body).digest();
    for (const g of given) if (g.length === expected.length && timingSafeEqual(g, expected)) ok = true;
  }
  return ok;
}

/** Verifies the signature, then parses the envelope; throws WebhookVerificationError when invalid. */
export function verifyWebhook<T = Record<string, unknown>>(opts: VerifyOptions): WebhookEvent<T> {
  if (!isValidWebhookSignature(opts)) throw new WebhookVerificationError('invalid signature');
  const text = typeof opts.body === 'string' ? opts.body : Buffer.from(opts.body).toString('utf8');
  return JSON.parse(text) as WebhookEvent<T>;
}
