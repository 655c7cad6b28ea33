// Builds the dashboard (web/) into web/dist, which src/plugins/dashboard.ts serves at `/`.
// `npm run build:web`; `npm start` runs it first. Every .js, .css and .html also gets a .gz and
// a .br beside it, which @fastify/static sends to clients that accept them.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = join(root, 'dist');

function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      for (const entry of readdirSync(outDir, { recursive: true, encoding: 'utf8' })) {
        if (!/\.(js|css|html|svg)$/.test(entry)) continue;
        const file = join(outDir, entry);
        const body = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(body));
      }
    },
  };
}

/** The charting chunk is imported dynamically; hint the browser to fetch it with the app's own. */
function preloadCharts(): Plugin {
  return {
    name: 'preload-charts',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunk = Object.values(ctx.bundle ?? {}).find(
          (c) => c.type === 'chunk' && c.isDynamicEntry && /uPlot/i.test(c.fileName),
        );
        return chunk
          ? [
              {
                tag: 'link',
                attrs: { rel: 'modulepreload', crossorigin: '', href: `/${chunk.fileName}` },
                injectTo: 'head',
              },
            ]
          : [];
      },
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  logLevel: 'warn',
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: false, reportCompressedSize: false },
  plugins: [preloadCharts(), precompress()],
});
