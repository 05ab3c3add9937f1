// The service's Ed25519 signing key for energy receipts. From ESG_SIGNING_KEY when set; otherwise,
// outside production, one key generated once and kept in the store (every instance and every
// restart signs with it). Every key that ever signed stays published, so old receipts verify.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Db } from '../../infra/db/index.ts';
import type { Clock } from '../../platform/clock.ts';
import { signingKeyStore } from './store.ts';

export interface ActiveKey {
  keyId: string;
  privateKey: KeyObject;
}

/** The raw 32-byte Ed25519 public key. */
export function rawPublicKey(pub: KeyObject): Buffer {
  return pub.export({ format: 'der', type: 'spki' }).subarray(-32);
}

/** ed25519-<first 16 hex of SHA-256 of the raw public key>. */
export function keyIdOf(pub: KeyObject): string {
  return `ed25519-${createHash('sha256').update(rawPublicKey(pub)).digest('hex').slice(0, 16)}`;
}

export function createKeyring(o: { db: Db; clock: Clock; configuredPem?: string; production: boolean }) {
  let loading: Promise<ActiveKey | null> | null = null;

  async function load(): Promise<ActiveKey | null> {
    if (o.configuredPem) {
      const privateKey = createPrivateKey(o.configuredPem);
      const pub = createPublicKey(privateKey);
      const keyId = keyIdOf(pub);
      await signingKeyStore.insertSigningKey(o.db, {
        key_id: keyId,
        public_key: pub.export({ format: 'pem', type: 'spki' }).toString(),
        private_key: null,
        origin: 'configured',
        created_at: o.clock.now(),
      });
      return { keyId, privateKey };
    }
    if (o.production) return null;
    let row = await signingKeyStore.generatedSigningKey(o.db);
    if (!row) {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      await signingKeyStore.insertSigningKey(o.db, {
        key_id: keyIdOf(publicKey),
        public_key: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
        private_key: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        origin: 'generated',
        created_at: o.clock.now(),
      });
      // Another instance may have won the race: everyone uses the one stored.
      row = await signingKeyStore.generatedSigningKey(o.db);
    }
    return { keyId: row!.key_id, privateKey: createPrivateKey(row!.private_key!) };
  }

  return {
    /** The key that signs now; null in production without ESG_SIGNING_KEY. */
    active(): Promise<ActiveKey | null> {
      loading ??= load().catch((e) => {
        loading = null;
        throw e;
      });
      return loading;
    },
    /** Every public key that has signed receipts, oldest first, and which one signs now. */
    async published() {
      const active = await this.active();
      const rows = await signingKeyStore.listSigningKeys(o.db);
      return rows.map((r) => {
        const pub = createPublicKey(r.public_key);
        const raw = rawPublicKey(pub);
        return {
          key_id: r.key_id,
          algorithm: 'Ed25519' as const,
          active: r.key_id === active?.keyId,
          public_key_pem: r.public_key,
          public_key_base64: raw.toString('base64'),
          jwk: { kty: 'OKP' as const, crv: 'Ed25519' as const, x: raw.toString('base64url'), kid: r.key_id },
          created_at: new Date(r.created_at).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        };
      });
    },
  };
}

export type Keyring = ReturnType<typeof createKeyring>;
