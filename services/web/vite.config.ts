import path from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The builder's web app (services/web): built to services/web/dist, served by the api on the
// platform origin (services/api/web-app). Hashed file names under /assets/ are cached for a year;
// index.html never is. The manifest lets the size budget test find the first page's chunks.
// The contract of this checkout, whatever node_modules links to: a git worktree that shares another
// checkout's node_modules would otherwise build against that checkout's contract.
const contract = path.join(import.meta.dirname, '../contract');

export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
  resolve: {
    alias: [
      { find: /^@demo-rooms\/contract$/, replacement: path.join(contract, 'index.ts') },
      { find: /^@demo-rooms\/contract\/manifest$/, replacement: path.join(contract, 'manifest/manifest.ts') },
    ],
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: true,
    sourcemap: true,
    target: 'es2022',
    assetsInlineLimit: 0, // the CSP allows no data: scripts or fonts; every asset is a file
  },
  logLevel: 'warn',
});
