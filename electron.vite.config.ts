import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';

const fromRoot = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/**
 * The dev server injects inline scripts (React Refresh preamble) and inline styles (CSS HMR),
 * which the strict CSP in index.html forbids. Relax it for `electron-vite dev` only; production
 * builds keep the policy exactly as written.
 */
function relaxCspForDevServer(): Plugin {
  return {
    name: 'loopscope:relax-csp-for-dev-server',
    apply: 'serve',
    transformIndexHtml(html) {
      return html.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("style-src 'self'", "style-src 'self' 'unsafe-inline'");
    },
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: fromRoot('./out/main'),
      // Every package in "dependencies" stays external (better-sqlite3 is a native addon).
      externalizeDeps: { exclude: ['zod'] },
      rolldownOptions: {
        input: {
          index: fromRoot('./src-main/electron/main.ts'),
          cli: fromRoot('./src-main/cli/main.ts'),
          ingestWorker: fromRoot('./src-main/engine/workers/ingestWorker.ts'),
          storeWorker: fromRoot('./src-main/engine/workers/storeWorker.ts'),
          queryWorker: fromRoot('./src-main/api/queryWorker.ts'),
          libraryWorker: fromRoot('./src-main/api/library/libraryWorker.ts'),
        },
        output: {
          format: 'es',
          entryFileNames: '[name].js',
          // Shared chunks sit next to the entries so that workerUrl()'s (and queryClient.ts's)
          // `new URL('./<worker>.js', import.meta.url)` resolves to out/main/<worker>.js from whichever file it ends up in.
          chunkFileNames: '[name]-[hash].js',
        },
      },
    },
  },
  preload: {
    build: {
      outDir: fromRoot('./out/preload'),
      // A sandboxed preload can only require('electron'): bundle everything else into one file.
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: fromRoot('./src-main/electron/preload.ts') },
        output: {
          format: 'cjs',
          entryFileNames: '[name].cjs',
          codeSplitting: false,
        },
      },
    },
  },
  renderer: {
    root: fromRoot('./src-renderer'),
    plugins: [react(), relaxCspForDevServer()],
    build: {
      outDir: fromRoot('./out/renderer'),
      // electron-vite leaves the renderer unminified; the page parses its code on every start, so minify it.
      minify: true,
      // One stylesheet, loaded with the page: a view loaded later with its code (views/lazyViews.tsx) finds its styles there,
      // in the cascade order views/viewStyles.ts gives them, instead of bringing a stylesheet of its own.
      cssCodeSplit: false,
      // The stylesheet is small: it stays as written, so that the cascade is exactly the source's.
      cssMinify: false,
      rolldownOptions: {
        input: { index: fromRoot('./src-renderer/index.html') },
      },
    },
  },
});
