import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

// Room pages (spec 4.2 addPage) are the builder's markdown or HTML, shown to viewers as tabs.
// Markdown is rendered with markdown-it, and every page, rendered or given as HTML, is cleaned by
// sanitize-html: no script, no handlers, no frames or forms, links only to http(s) and mailto.
// The room also serves each page with a CSP sandbox and draws it in a sandboxed frame without
// scripts, as a second wall. Slow on large pages (≈0.8 s for 2 MB of markdown): the api and the
// room call it only through page-renderer.ts, off their event loops, and store what it made.

const markdown = new MarkdownIt({ html: true, linkify: true, typographer: true });

const allowed: sanitizeHtml.IOptions = {
  allowedTags: [
    ...sanitizeHtml.defaults.allowedTags,
    'img',
    'figure',
    'figcaption',
    'picture',
    'source',
    'del',
    'ins',
    'sup',
    'sub',
    'details',
    'summary',
  ],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
    source: ['srcset', 'type', 'media'],
    '*': ['id', 'title', 'lang', 'dir'],
    th: ['colspan', 'rowspan', 'align'],
    td: ['colspan', 'rowspan', 'align'],
    ol: ['start', 'reversed'],
  },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesByTag: { img: ['http', 'https', 'data'] },
  allowProtocolRelative: false,
  // Links leave the room in a new tab, and never tell the target where they came from.
  transformTags: { a: sanitizeHtml.simpleTransform('a', { target: '_blank', rel: 'noopener noreferrer' }) },
};

/** A page's body as safe HTML. */
export function renderPage(kind: 'markdown' | 'html', content: string): string {
  return sanitizeHtml(kind === 'markdown' ? markdown.render(content) : content, allowed);
}
