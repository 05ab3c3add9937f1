// Energy receipts (endpoints.md 4.2, Certificates) and the public keys that verify them.
import { Type } from 'typebox';
import { BEARER, withDefaults } from '../../platform/operation.ts';
import type { Keyring } from './keys.ts';
import type { createReceiptService } from './service.ts';
import { ErrorResponse } from '../../platform/schema-kit.ts';

const Receipt = Type.Object({
  receipt_id: Type.String(),
  content_hash: Type.String({
    description: 'Hex SHA-256 of the payload’s canonical JSON (sorted keys, no whitespace); identifies the receipt within the organisation',
  }),
  hash_algorithm: Type.Literal('sha256'),
  payload: Type.Object({}, { additionalProperties: true, description: 'The payload as stored (canonical form)' }),
  issued_at: Type.String({ format: 'date-time' }),
  key_id: Type.String({ description: 'The signing key; its public half is at GET /api/esg/keys' }),
  signature_algorithm: Type.Literal('Ed25519'),
  signature: Type.String({ description: 'Base64 Ed25519 signature over the UTF-8 bytes of signing_input' }),
  signing_input: Type.String({
    description: 'Canonical JSON of {content_hash, issued_at, key_id, organisation_id, receipt_id, type, version}: the bytes signed',
  }),
});

const CreateBody = Type.Object(
  { payload: Type.Object({}, { additionalProperties: true, description: 'Any JSON object (nested at most 64 levels)' }) },
  { additionalProperties: false },
);

export const PublicKey = Type.Object({
  key_id: Type.String(),
  algorithm: Type.Literal('Ed25519'),
  active: Type.Boolean({ description: 'True for the key signing new receipts; the others verify older ones' }),
  public_key_pem: Type.String({ description: 'SubjectPublicKeyInfo PEM' }),
  public_key_base64: Type.String({ description: 'The raw 32-byte public key, base64' }),
  jwk: Type.Object({ kty: Type.Literal('OKP'), crv: Type.Literal('Ed25519'), x: Type.String(), kid: Type.String() }),
  created_at: Type.String({ format: 'date-time' }),
});

export function esgOperations(receipts: ReturnType<typeof createReceiptService>, keys: Keyring) {
  const tags = ['certificates'];
  const op = withDefaults({ tags, status: 'live' });
  return [
    op({
      operationId: 'listEnergyReceipts',
      method: 'GET',
      path: '/api/esg/',
      summary: 'The organisation’s energy receipts',
      description: 'Every receipt of the organisation, newest first, unpaginated.',
      access: BEARER.read,
      dataBasis: { basis: 'stored' },
      schema: { response: { 200: Type.Object({ count: Type.Integer(), receipts: Type.Array(Receipt) }) } },
      handler: async ({ ctx }) => {
        const list = await receipts.list(ctx);
        return { count: list.length, receipts: list };
      },
    }),
    op({
      operationId: 'createEnergyReceipt',
      method: 'POST',
      path: '/api/esg/',
      summary: 'Store a payload as a signed energy receipt',
      description:
        'Stores `payload` with its content hash (SHA-256 of its canonical JSON: an identifier on the service side, ' +
        'not a cross-language content commitment) and signs the receipt with the service’s Ed25519 key. 201 on ' +
        'issue; 200 with the existing receipt when the organisation already holds one for the same payload. ' +
        'Verify with the public key of `key_id` from GET /api/esg/keys over the bytes of `signing_input`, and ' +
        'check its content_hash against the payload. 503 `Signing key not configured` in production without ' +
        'ESG_SIGNING_KEY.',
      access: BEARER.configure,
      dataBasis: { basis: 'stored' },
      bodyLimit: 256 * 1024,
      schema: { body: CreateBody, response: { 200: Receipt, 201: Receipt, 503: ErrorResponse } },
      handler: async ({ body, ctx, reply }) => {
        const r = await receipts.issue(ctx, body.payload as Record<string, unknown>);
        reply.code(r.created ? 201 : 200);
        return r.receipt;
      },
    }),
    op({
      operationId: 'listEnergyReceiptKeys',
      method: 'GET',
      path: '/api/esg/keys',
      summary: 'Public keys that verify energy receipts',
      description: 'Every Ed25519 public key that has signed energy receipts, so anyone holding a receipt can verify it. ' + 'Public: no credential needed.',
      access: { kind: 'public' },
      dataBasis: { basis: 'configured' },
      schema: { response: { 200: Type.Object({ keys: Type.Array(PublicKey) }) } },
      handler: async () => ({ keys: await keys.published() }),
    }),
  ];
}
