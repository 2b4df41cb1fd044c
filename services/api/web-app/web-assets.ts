import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompress, constants, gzipSync } from 'node:zlib';
import mime from 'mime-types';

// The built web app (services/web/dist, written by `vite build`), held in memory: a few hundred
// KB. Each hashed asset is compressed once at start, gzip at once and brotli in the background, so
// no request pays for it.

export interface WebAsset {
  bytes: Buffer;
  type: string;
  gzip: Buffer;
  brotli?: Buffer;
}

export interface WebBuild {
  /** index.html, with `<!--pp-config-->` where the page's settings go. */
  index: string | null;
  /** By URL path: `/assets/index-3f2a1c.js`, `/favicon.ico`. */
  assets: Map<string, WebAsset>;
}

export const webDist = new URL('../../web/dist/', import.meta.url);

export function loadWebBuild(dir: URL = webDist): WebBuild {
  const assets = new Map<string, WebAsset>();
  if (!existsSync(new URL('index.html', dir))) return { index: null, assets };
  const add = (path: string, file: string, type = mime.contentType(file.split('/').pop()!) || 'application/octet-stream') => {
    const bytes = readFileSync(file);
    const asset: WebAsset = { bytes, type, gzip: gzipSync(bytes, { level: 9 }) };
    brotliCompress(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }, (err, out) => {
      if (!err) asset.brotli = out;
    });
    assets.set(path, asset);
  };
  const assetDir = new URL('assets/', dir);
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) if (!name.endsWith('.map')) add(`/assets/${name}`, join(assetDir.pathname, name));
  }
  const favicon = new URL('favicon.svg', dir);
  if (existsSync(favicon)) add('/favicon.ico', favicon.pathname, 'image/svg+xml');
  return { index: readFileSync(new URL('index.html', dir), 'utf8'), assets };
}

/** The best encoding the browser accepts: brotli, gzip, or the bytes as they are. */
export function pickEncoding(asset: WebAsset, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } {
  const accepts = (name: string) => new RegExp(`(^|[,\\s])${name}(;q=(?!0(\\.0*)?\\b)[\\d.]+)?\\s*(,|$)`).test(acceptEncoding ?? '');
  if (asset.brotli && accepts('br')) return { body: asset.brotli, encoding: 'br' };
  if (accepts('gzip')) return { body: asset.gzip, encoding: 'gzip' };
  return { body: asset.bytes };
}
