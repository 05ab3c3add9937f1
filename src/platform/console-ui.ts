// The operators' web console at `/`: static assets built from console/ (Vite) into console/dist at
// install (`prepare`) or, when missing, at start (src/main.ts). Served from this service only, with
// a strict content security policy: scripts, styles, fonts and connections to this origin alone.
// Each built file gets its own route (no wildcard), so every other path keeps the API's 404.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';

export const CONSOLE_DIST = fileURLToPath(new URL('../../console/dist/', import.meta.url));

const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  // uPlot and the components set element styles from script (CSSOM); no inline <style> is served.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export async function registerConsole(app: FastifyInstance, dist = CONSOLE_DIST): Promise<boolean> {
  if (!existsSync(`${dist}index.html`)) {
    app.log.warn(`console not built (${dist}): run "npm run build:console"`);
    return false;
  }
  await app.register(fastifyStatic, {
    root: dist,
    prefix: '/',
    wildcard: false,
    index: ['index.html'],
    decorateReply: false,
    schemaHide: true,
    setHeaders(res, path) {
      res.header('Content-Security-Policy', CSP);
      res.header('X-Content-Type-Options', 'nosniff');
      res.header('Referrer-Policy', 'no-referrer');
      // Hashed file names under assets/ never change; index.html is checked every time.
      res.header('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return true;
}
