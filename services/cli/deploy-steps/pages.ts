import { readFile } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { Client } from '@demo-rooms/contract';
import type { Manifest } from '@demo-rooms/contract/manifest';
import { ask } from '../context.js';

export interface PageFile {
  title: string;
  kind: 'markdown' | 'html';
  content: string;
}

const TITLE_MAX = 80;

/**
 * A page's title: a Markdown file's first `# heading`, an HTML file's <title> or first <h1>, else
 * its file name in words (`pricing-faq.md` reads `Pricing faq`). Titles identify pages (a page
 * with an existing title is replaced), so the same file keeps its page from deploy to deploy.
 */
export function pageTitle(path: string, kind: PageFile['kind'], content: string): string {
  const found =
    kind === 'markdown'
      ? /^#\s+(.+?)\s*#*\s*$/m.exec(content)?.[1]
      : (/<title[^>]*>([\s\S]*?)<\/title>/i.exec(content) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(content))?.[1]?.replace(/<[^>]+>/g, '');
  const fallback = basename(path, extname(path)).replace(/[-_]+/g, ' ').trim();
  const title = (found?.replace(/\s+/g, ' ').trim() || fallback || 'Page').slice(0, TITLE_MAX);
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** The manifest's pages, read from the project folder (their checks ran with the manifest's). */
export async function readPages(dir: string, manifest: Manifest): Promise<PageFile[]> {
  return Promise.all(
    (manifest.pages ?? []).map(async (path) => {
      const content = await readFile(resolve(dir, path), 'utf8');
      const kind = path.endsWith('.md') ? ('markdown' as const) : ('html' as const);
      return { title: pageTitle(path, kind, content), kind, content };
    }),
  );
}

/** Sends each page to the project's room, in the manifest's order. */
export async function sendPages(client: Client, projectId: string, pages: PageFile[]): Promise<void> {
  for (const page of pages) {
    await ask(`sending the page ${JSON.stringify(page.title)}`, () => client.call('addPage', { params: { projectId }, body: page }));
  }
}
