// The receiver-side verifier exported by the SDK (packages/sdk/src/verify-webhook.ts), cross-checked
// with the service's signer and an HMAC written here from the spec text (T-28).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { verifyWebhook, isValidWebhookSignature, WebhookVerificationError } from '../../packages/sdk/src/verify-webhook.ts';
import { newSigningSecret, signatureHeader } from '../../src/modules/devtools/webhooks/secrets.ts';
import { verifySignature } from './helpers.ts';

const now = new Date('2026-12-01T12:00:00Z');
const t = Math.floor(now.getTime() / 1000);

test('random payloads: the service signature verifies with the SDK and the independent verifier; one changed byte fails both', () => {
  const secret = newSigningSecret();
  fc.assert(
    fc.property(fc.jsonValue(), fc.integer({ min: 0, max: 10_000 }), (value, n) => {
      const body = JSON.stringify({ id: `evt_${n}`, data: value });
      const header = signatureHeader(body, t, [secret]);
      // The HMAC primitive as Standard Webhooks computes v1 (base64 HMAC-SHA256 keyed by the decoded secret).
      const swh = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(`${t}.${body}`)
        .digest('base64');
      assert.equal(header, `t=${t},v1=${swh}`);
      assert.ok(isValidWebhookSignature({ body, signature: header, secret, now }));
      assert.ok(verifySignature(header, body, secret, t));
      const i = n % body.length;
      const tampered = body.slice(0, i) + String.fromCharCode(body.charCodeAt(i) ^ 1) + body.slice(i + 1);
      assert.ok(!isValidWebhookSignature({ body: tampered, signature: header, secret, now }));
      assert.ok(!verifySignature(header, tampered, secret, t));
    }),
    { numRuns: 300, seed: 42 },
  );
});

test('rotation: either secret verifies a two-v1 header; stale or future t, missing header, wrong secret fail', () => {
  const oldS = newSigningSecret();
  const newS = newSigningSecret();
  const body = '{"id":"evt_1","type":"webhook.test","data":{}}';
  const header = signatureHeader(body, t, [newS, oldS]);
  assert.equal(verifyWebhook({ body, signature: header, secret: oldS, now }).id, 'evt_1');
  assert.equal(verifyWebhook({ body: Buffer.from(body), signature: header, secret: newS, now }).type, 'webhook.test');
  assert.ok(isValidWebhookSignature({ body, signature: header, secret: [newSigningSecret(), oldS], now }));
  for (const bad of [
    { signature: header, secret: newSigningSecret(), now },
    { signature: header, secret: newS, now: new Date(now.getTime() + 301_000) },
    { signature: header, secret: newS, now: new Date(now.getTime() - 301_000) },
    { signature: undefined, secret: newS, now },
    { signature: `t=${t}`, secret: newS, now },
    { signature: header.replace(/^t=\d+/, `t=${t + 1}`), secret: newS, now },
  ]) {
    assert.ok(!isValidWebhookSignature({ body, ...bad }));
    assert.throws(() => verifyWebhook({ body, ...bad }), WebhookVerificationError);
  }
});

test('the SDK package exports the verifier as compiled JavaScript (the workspace build)', async () => {
  const mod = await import('@energy-platform/sdk/verify-webhook');
  assert.equal(typeof mod.verifyWebhook, 'function');
  assert.match(import.meta.resolve('@energy-platform/sdk/verify-webhook'), /\/dist\/verify-webhook\.js$/);
});
