// Builds the console (console/ → console/dist) with Vite. Run by `npm ci` (the `prepare` script)
// and by src/main.ts when the build is missing, so a fresh clone serves it after `npm ci && npm start`.
// Without the build tools (an install without devDependencies) it says so and leaves the API alone.
import { fileURLToPath } from 'node:url';

export async function buildConsole(): Promise<boolean> {
  let vite: typeof import('vite');
  try {
    vite = await import('vite');
  } catch {
    console.warn('console: not built (vite is not installed; install devDependencies to build it)');
    return false;
  }
  const t0 = performance.now();
  await vite.build({ configFile: fileURLToPath(new URL('./vite.config.ts', import.meta.url)) });
  console.log(`console: built in ${Math.round(performance.now() - t0)} ms`);
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildConsole();
