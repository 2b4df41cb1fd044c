// The tag that brings the room's frame helper (frame-helper.js) into a build's HTML documents,
// static ones (static-files.ts) and those a viewer's copy answers (copy-forward.ts) alike.

export const FRAME_HELPER_PATH = '/__pp/frame-helper.js';

/** The screenshot library (modern-screenshot's ES module build), imported by the helper on the first capture asked. */
export const CAPTURE_LIBRARY_PATH = '/__pp/capture.js';

/** What goes into every HTML document served, read when first needed (a test learns its address late). */
export type HtmlHead = () => string;

/**
 * What goes into one HTML page a viewer's copy answers, told that answer's headers as the viewer
 * gets them (the copy's own Content-Security-Policy may stop the helper) and where it came from.
 * An empty string puts nothing in.
 */
export type PageHead<T> = (page: { status: number; headers: Record<string, string | string[]>; target: T }) => string;

/** The helper's tag, told the platform's origin: the only window it will answer. */
export const frameHelperTag = (platformOrigin: string) => `<script src="${FRAME_HELPER_PATH}" data-room="${platformOrigin}"></script>`;

/**
 * `tag` put into an HTML document: after its <head> (or <html>, or doctype) opening, never
 * before the doctype, which would send the browser into quirks mode.
 */
export function withHeadTag(html: Buffer, tag: string): Buffer {
  const text = html.toString('utf8');
  const at = [/<head(?:\s[^>]*)?>/i, /<html(?:\s[^>]*)?>/i, /<!doctype[^>]*>/i].map((re) => re.exec(text)).find(Boolean);
  const cut = at ? at.index + at[0].length : 0;
  return Buffer.from(text.slice(0, cut) + tag + text.slice(cut), 'utf8');
}
