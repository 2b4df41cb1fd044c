import { createHash } from 'node:crypto';
import { renderPage } from '../../rules/room-pages/render-page.js';

// The task a page-renderer thread runs (piscina loads this file in a worker thread): the page's
// safe HTML and its SHA-256, which the room sends as the page's ETag.

export type RenderTask = { kind: 'markdown' | 'html'; content: string };
export type RenderedPage = { html: string; hash: string };

export default function renderTask({ kind, content }: RenderTask): RenderedPage {
  const html = renderPage(kind, content);
  return { html, hash: createHash('sha256').update(html).digest('base64url') };
}
