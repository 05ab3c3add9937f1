// The operators' console: Preact + uPlot, built into console/dist (gitignored) and served by the
// service at `/` (src/platform/console-ui.ts). No CDN: everything is bundled.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [preact()],
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    target: 'es2022',
    // No inline scripts or data: modules (the content security policy allows this origin only).
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
