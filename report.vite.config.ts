import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const fromRoot = (relative: string): string => fileURLToPath(new URL(relative, import.meta.url));

/**
 * The page of an HTML report (src-renderer/report/reportMain.tsx) as one script and one
 * stylesheet, out/report/report.js and report.css, which `loopscope export --html` inlines into the
 * file it writes: no code split into chunks, since a report is one file with nothing beside it.
 */
export default defineConfig({
  root: fromRoot('./src-renderer'),
  base: './',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    outDir: fromRoot('./out/report'),
    emptyOutDir: true,
    minify: true,
    // As the app's stylesheet (electron.vite.config.ts): one file, the cascade exactly the source's.
    cssCodeSplit: false,
    cssMinify: false,
    // The whole app in one script is larger than the app's first chunk by design.
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      input: { report: fromRoot('./src-renderer/report/reportMain.tsx') },
      output: {
        format: 'es',
        entryFileNames: '[name].js',
        assetFileNames: '[name][extname]',
        codeSplitting: false,
      },
    },
  },
});
