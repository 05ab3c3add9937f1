// A random secret kept in a file only its owner can read (mode 0600), created on first use.
// Creation is atomic: the secret is written to a private temporary file, then linked into place,
// so two processes starting together agree on one secret and no one reads a half-written file.
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export class SecretFileError extends Error {}

export interface SecretFile {
  secret: string;
  path: string;
  created: boolean;
}

export function readOrCreateSecret(dir: string, name: string): SecretFile {
  const path = join(dir, name);
  let created = false;
  try {
    statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new SecretFileError(`cannot read ${path}: ${(e as Error).message}`);
    mkdirSync(dir, { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(tmp, `${randomBytes(48).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
    try {
      linkSync(tmp, path);
      created = true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new SecretFileError(`cannot create ${path}: ${(err as Error).message}`);
    } finally {
      rmSync(tmp, { force: true });
    }
  }
  if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) {
    throw new SecretFileError(`${path} may be read by other users: chmod 600 ${path}`);
  }
  return { secret: readFileSync(path, 'utf8').trim(), path, created };
}
