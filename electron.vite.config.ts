// Build of the desktop app (electron-vite): four entries (main has a third input, the OHLCV worker).
//   main      main/index.ts             -> out/main/index.js   (Electron main: window, presets, supervisor)
//   host      main/trainer/host-entry.ts -> out/main/host.js   (trainer host, started with utilityProcess.fork)
//   preload   preload/index.ts          -> out/preload/index.cjs (CommonJS with everything bundled: the
//                                           window is sandboxed, so the preload can require only electron)
//   renderer  renderer/index.html       -> out/renderer/       (also served by `npm run serve`)
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import type { UserConfig } from 'vite';

const root = import.meta.dirname;

/** The renderer's Vite config, shared with the browser-mode server's build (main/serve/renderer-build.ts). */
export const rendererConfig = {
  root: resolve(root, 'renderer'),
  base: './',
  plugins: [react()],
  build: {
    outDir: resolve(root, 'out', 'renderer'),
    emptyOutDir: true,
    target: 'chrome120',
    reportCompressedSize: false,
    // One bundle of ~0.8 MB (React + recharts + zod), loaded from disk or loopback.
    chunkSizeWarningLimit: 1200,
    rolldownOptions: { input: resolve(root, 'renderer', 'index.html') },
  },
} satisfies UserConfig;

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out', 'main'),
      rolldownOptions: {
        input: {
          index: resolve(root, 'main', 'index.ts'),
          host: resolve(root, 'main', 'trainer', 'host-entry.ts'),
          // Started by loadOhlcvOffThread (main/trainer/data/ohlcv.ts) from a chunk beside it.
          'ohlcv-worker': resolve(root, 'main', 'trainer', 'data', 'ohlcv-worker.ts'),
        },
        // Shared chunks stay beside the entries: modules that find the repository from their own
        // location (main/trainer/paths.ts: two folders up) then resolve the same as in the sources.
        output: { chunkFileNames: '[name]-[hash].js' },
      },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out', 'preload'),
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(root, 'preload', 'index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: rendererConfig,
});
