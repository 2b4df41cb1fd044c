import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The builder's web app (services/web): built to services/web/dist, served by the api on the
// platform origin (services/api/web-app). Hashed file names under /assets/ are cached for a year;
// index.html never is. The manifest lets the size budget test find the first page's chunks.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  plugins: [react()],
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
