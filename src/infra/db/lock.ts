import { mkdirSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

// PGlite allows one process per data directory. The server and the CLI take this lock so the
// CLI refuses (rather than opening the store behind a running server's back and corrupting it).

export class StoreLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireStoreLock(dataDir: string, holder: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'service.lock');
  const content = `${process.pid}\n${holder}\n`;
  try {
    // 'wx' creates atomically: of two processes starting together, one wins.
    writeFileSync(file, content, { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    const [pidText, who] = readFileSync(file, 'utf8').split('\n');
    const pid = Number(pidText);
    if (pid && pid !== process.pid && alive(pid)) {
      throw new StoreLockedError(
        `The embedded store in ${dataDir} is in use by a running ${who || 'process'} (pid ${pid}). ` +
          'Stop it first, or run against PostgreSQL by setting DATABASE_URL.',
      );
    }
    // The holder is gone (crashed): take the lock over.
    rmSync(file, { force: true });
    writeFileSync(file, content, { flag: 'wx' });
  }
  return () => {
    try {
      const [pidText] = readFileSync(file, 'utf8').split('\n');
      if (Number(pidText) === process.pid) rmSync(file);
    } catch {
      /* already gone */
    }
  };
}
