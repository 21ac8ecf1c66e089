import optimizeLocales from '@react-aria/optimize-locales-plugin';
import react from '@vitejs/plugin-react';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Plugin } from 'vite';
import { defineProject, workspaceAliases } from '../../tools/vitest.shared.ts';
import { javaScriptBudget } from './javascript-budget.ts';

/** Writes `<file>.gz` beside each script and style of the build; the API sends it to browsers that accept gzip. */
function precompress(): Plugin {
  return {
    name: 'framedesk-precompress',
    apply: 'build',
    enforce: 'post',
    // After the files are written: earlier hooks still see Vite's placeholders (__VITE_PRELOAD__).
    writeBundle(options, bundle) {
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(name)) continue;
        const file = join(options.dir!, name);
        writeFileSync(`${file}.gz`, gzipSync(readFileSync(file), { level: 9 }));
      }
    },
  };
}

// Dev server (npm start) proxies the API so the browser sees one origin, as in production.
const api = `http://127.0.0.1:${process.env['API_PORT'] ?? '3000'}`;
const proxied = ['/review', '/v1', '/media', '/healthz', '/readyz'];

export default defineProject(import.meta.dirname, {
  // React Aria ships its strings in 34 languages; the workbench speaks English only.
  // The build measures what the queue's first load downloads (javascript-budget.ts).
  plugins: [
    react(),
    optimizeLocales.vite({ locales: ['en-US'] }),
    precompress(),
    javaScriptBudget(import.meta.dirname),
  ],
  resolve: {
    alias: [
      ...Object.entries(workspaceAliases()).map(([find, replacement]) => ({ find, replacement })),
      // React Aria's fallback for React < 18 (unused on React 19, yet bundled): React's own hook.
      { find: /^use-sync-external-store\/shim(\/index\.js)?$/, replacement: 'react' },
    ],
  },
  server: {
    host: '127.0.0.1',
    port: Number(process.env['WORKBENCH_PORT'] ?? 5173),
    strictPort: true,
    proxy: Object.fromEntries(proxied.map((path) => [path, { target: api, changeOrigin: false }])),
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // The shared contracts build their JSON schemas at import time (TypeBox); the workbench uses
    // only their plain constants (values.ts, review.ts), so a contracts module it takes nothing
    // from is left out whole, and TypeBox with it (12 kB gzipped that marking `Type` pure left in).
    rolldownOptions: {
      treeshake: { moduleSideEffects: [{ test: /\/libs\/contracts\/src\//, sideEffects: false }] },
      // What the first page needs (main.tsx and all it imports statically) in one chunk: it was
      // spread over four that every page loaded anyway, and one file compresses better (2 kB).
      output: {
        codeSplitting: {
          groups: [{ name: 'app', test: /\/apps\/workbench\/src\/main\.tsx$/, includeDependenciesRecursively: true }],
        },
      },
    },
  },
  test: {
    environment: 'happy-dom',
    isolate: true,
    include: ['src/**/*.spec.ts', 'src/**/*.spec.tsx'],
    exclude: ['e2e/**'],
  },
});
