import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const outDir = new URL('../dist/web/', import.meta.url).pathname;

/**
 * Writes .br and .gz beside each asset so the server sends them as they are
 * (@fastify/static's preCompressed) instead of compressing on every request.
 */
function precompress(): Plugin {
  return {
    name: 'hookwatch-precompress',
    apply: 'build',
    closeBundle() {
      const assets = join(outDir, 'assets');
      for (const name of readdirSync(assets)) {
        if (!/\.(js|css|svg)$/.test(name)) continue;
        const file = join(assets, name);
        const bytes = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
      }
    },
  };
}

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react(), precompress()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // One small app: a single script and stylesheet load faster than a preload graph.
    modulePreload: { polyfill: false },
  },
  server: {
    // `npx vite --config web/vite.config.ts` next to `npm start` on 8080.
    proxy: { '/app/api': 'http://localhost:8080', '/i/': 'http://localhost:8080' },
  },
});
