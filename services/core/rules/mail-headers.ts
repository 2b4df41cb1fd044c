// Every mail header the platform writes goes through here (issue 45): a subject often carries
// words others typed (a project's name, a viewer's name in an alert), and a line break reaching
// a header line would start a header of its own (`Bcc: …`). Values are made one line without
// control characters, then RFC 2047-encoded when not plain ASCII.

// C0 (with tab, CR and LF), DEL, C1, and the Unicode line and paragraph separators.
const controls = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]+/g;

/** `value` on one line: every run of control characters becomes one space. */
export function oneLine(value: string): string {
  return value.replace(controls, ' ').trim();
}

/** Longest run of UTF-8 bytes in one encoded word: 45 bytes are 60 base64 characters, 72 with `=?UTF-8?B?…?=`. */
const WORD_BYTES = 45;

/**
 * A header value fit to write: one line; plain printable ASCII as it is, anything else as RFC 2047
 * `=?UTF-8?B?…?=` words (each under 75 characters, split between characters, never inside one).
 */
export function headerValue(value: string): string {
  const line = oneLine(value);
  if (/^[\x20-\x7E]*$/.test(line)) return line;
  const words: string[] = [];
  let chunk = '';
  for (const ch of line) {
    if (Buffer.byteLength(chunk + ch) > WORD_BYTES) {
      words.push(chunk);
      chunk = '';
    }
    chunk += ch;
  }
  if (chunk) words.push(chunk);
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join(' ');
}

/** An address header (`Name <a@b>` or a bare address): the name encoded, the address kept one line. */
export function addressValue(value: string): string {
  const line = oneLine(value);
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(line);
  if (!m) return line;
  return m[1] ? `${headerValue(m[1].replace(/^"|"$/g, ''))} <${m[2]}>` : `<${m[2]}>`;
}
