import { defineConfig } from 'vite';

// The jar serves the build at /console; assets get content hashes, so the server may cache them for a year.
export default defineConfig({
  base: '/console/',
  build: {
    outDir: '../target/classes/console',
    emptyOutDir: true,
    assetsDir: 'assets',
    // the Content-Security-Policy forbids inline code: every script and style is a file
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
});
