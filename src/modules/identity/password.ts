// Password hashing: scrypt (memory-hard), N=2^15, r=8, p=3, 16-byte salt, 32-byte key:
// about 32 MiB and 170 ms per hash on the 2-core reference machine. The stored string names the
// KDF and its parameters, so they can be raised later and old hashes still verify.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { createGate } from '../../platform/concurrency-gate.ts';

const N = 2 ** 15;
const R = 8;
const P = 3;
const KEYLEN = 32;
const MAXMEM = 256 * 1024 * 1024;

// At most this many derivations run at once, leaving a core to the event loop: each one is a
// thread of the libuv pool competing with request handling for the CPU, and with four at once on
// one core the event loop got a fifth of it (reliability plan T-2/T-3: sign-ins stretched every
// other request's tail). Past 64 queued derivations the next sign-in is refused with 503 rather
// than queued without bound (a flood from many addresses passes the per-address limit).
const kdfGate = createGate(Math.max(1, availableParallelism() - 1), 64);

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return kdfGate(() => new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)))));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFKC'), salt, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Constant-time comparison of the derived key. A malformed stored hash never verifies. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same work as a real check so timing does not reveal a missing account.
    await scrypt(password.normalize('NFKC'), DUMMY_SALT, KEYLEN, { N, r: R, p: P, maxmem: MAXMEM });
    return false;
  }
  const [, n, r, p, saltB64, keyB64] = parts;
  const expected = Buffer.from(keyB64, 'base64');
  const key = await scrypt(password.normalize('NFKC'), Buffer.from(saltB64, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

const DUMMY_SALT = randomBytes(16);

export const KDF_PARAMETERS = { algorithm: 'scrypt', N, r: R, p: P, saltBytes: 16, keyBytes: KEYLEN };
