// Where the CLI keeps the session: the user's config directory (env-paths; ENERGY_PLATFORM_CONFIG_DIR
// overrides), file mode 0600 in a 0700 directory, written whole (temporary file, then rename).
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import envPaths from 'env-paths';
import type { Session } from '../transport.ts';

export interface StoredSession {
  baseUrl: string;
  email?: string;
  session: Session;
}

export function configDir(): string {
  return process.env.ENERGY_PLATFORM_CONFIG_DIR || envPaths('energy-platform', { suffix: '' }).config;
}

export const sessionPath = () => join(configDir(), 'session.json');

/** Writes a file readable by its owner only, replacing it whole. */
export function writePrivate(path: string, text: string): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function readSession(): StoredSession | undefined {
  try {
    return JSON.parse(readFileSync(sessionPath(), 'utf8')) as StoredSession;
  } catch {
    return undefined;
  }
}

export function saveSession(s: StoredSession): void {
  writePrivate(sessionPath(), JSON.stringify(s, null, 2) + '\n');
}

export function clearSession(): void {
  rmSync(sessionPath(), { force: true });
}
