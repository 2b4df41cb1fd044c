import { Parser } from 'htmlparser2';

// The tag that brings the room's frame helper (frame-helper.ts, served built as frame-helper.js) into a build's HTML documents,
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
 * Whether a request is a document load (a frame or a window navigating), the only kind of
 * request whose HTML gets the helper. An app's own fetch of an HTML fragment (Node-RED fetches
 * its node templates with `Accept: text/html` and puts them in its page) must come back as the
 * app sent it, or the page ends up with the tag again for every fragment. Browsers say so in
 * Sec-Fetch-Dest; one that does not is judged by its Accept header.
 */
export function isDocumentRequest(headers: Record<string, string | string[] | undefined>): boolean {
  const dest = headers['sec-fetch-dest'];
  if (typeof dest === 'string') return dest === 'document' || dest === 'iframe' || dest === 'frame';
  return /\btext\/html\b/.test(String(headers.accept ?? ''));
}

/** How much of a document is held while looking for where the tag goes; past it the page passes as it is. */
export const TAG_SEARCH_BYTES = 256 * 1024;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Where the helper's tag goes in an HTML document, fed in pieces as they arrive: the point an HTML
 * parser puts a `<script>` first into the head. That is just after the `<head>` start tag when
 * the document's first element is its head (after an optional `<html>`), else just before the
 * first element or text, where the parser opens the head itself. Doctypes, comments and
 * whitespace before it are passed over, never entered, and nothing after the first element is
 * looked at: `<head>` or `</body>` inside a script's text (Node-RED's `<script
 * type="text/x-red">` templates), a comment, a template or a textarea never decides.
 *
 * The bytes are read as Latin-1, one character a byte, so the point found is a byte offset in
 * any ASCII-compatible encoding and nothing of the page is decoded or encoded again.
 */
export class HeadTagPoint {
  #seen = 0;
  /** Where the parser's text starts in the document: past a byte order mark. */
  #decideOffset = 0;
  #at: number | null = null;
  #afterHtml = false;
  #head = false;
  readonly #parser: Parser;

  constructor() {
    this.#parser = new Parser(
      {
        onopentagname: (name) => {
          if (this.#at !== null) return;
          if (name === 'html' && !this.#afterHtml) this.#afterHtml = true;
          else if (name === 'head') this.#head = true;
          else this.#decide(this.#parser.startIndex);
        },
        onopentag: (name) => {
          if (this.#at === null && name === 'head' && this.#head) this.#decide(this.#parser.endIndex + 1);
        },
        onclosetag: () => this.#decide(this.#parser.startIndex),
        ontext: (text) => {
          if (/[^\t\n\f\r ]/.test(text)) this.#decide(this.#parser.startIndex);
        },
      },
      { decodeEntities: false, lowerCaseTags: true, recognizeSelfClosing: false },
    );
  }

  #decide(at: number) {
    if (this.#at === null) this.#at = at;
  }

  /** Feeds the next piece; the point (a byte offset from the document's start) once it is known. */
  write(chunk: Buffer): number | null {
    if (this.#at !== null) return this.#at;
    let piece = chunk;
    // A byte order mark stays first: the point is never before it.
    if (this.#seen === 0 && piece.subarray(0, 3).equals(UTF8_BOM)) {
      this.#decideOffset = 3;
      piece = piece.subarray(3);
    }
    this.#seen += chunk.length;
    this.#parser.write(piece.toString('latin1'));
    return this.#at === null ? null : this.#at + this.#decideOffset;
  }

  /** The point when the document ended without one: its end (a document of a doctype and comments). */
  end(): number {
    if (this.#at === null) this.#parser.end();
    return this.#at === null ? this.#seen : this.#at + this.#decideOffset;
  }
}

/**
 * Puts `tag` into an HTML document streamed in pieces, once: `push` and `end` return what to send
 * on. Pieces are held only until the point is found (at most `holdBytes`, else the document
 * passes without the tag), then pass straight through.
 */
export class HeadTagSplicer {
  #point = new HeadTagPoint();
  #held: Buffer[] = [];
  #heldBytes = 0;
  #done = false;

  constructor(
    private readonly tag: string,
    private readonly holdBytes = TAG_SEARCH_BYTES,
  ) {}

  push(chunk: Buffer): Buffer[] {
    if (this.#done) return [chunk];
    this.#held.push(chunk);
    this.#heldBytes += chunk.length;
    const at = this.#point.write(chunk);
    if (at !== null) return this.#splice(at);
    if (this.#heldBytes > this.holdBytes) return this.#release();
    return [];
  }

  end(): Buffer[] {
    if (this.#done) return [];
    return this.#splice(this.#point.end());
  }

  #splice(at: number): Buffer[] {
    const whole = Buffer.concat(this.#release());
    return [whole.subarray(0, at), Buffer.from(this.tag, 'utf8'), whole.subarray(at)].filter((b) => b.length);
  }

  #release(): Buffer[] {
    this.#done = true;
    const held = this.#held;
    this.#held = [];
    return held;
  }
}

/** `tag` put into a whole HTML document, where HeadTagPoint says. */
export function withHeadTag(html: Buffer, tag: string): Buffer {
  const splicer = new HeadTagSplicer(tag, Infinity);
  return Buffer.concat([...splicer.push(html), ...splicer.end()]);
}
