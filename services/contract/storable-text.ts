import { z } from 'zod';

// Text a stranger typed, made fit to store. Postgres refuses a NUL in text and `\u0000` or a lone
// surrogate in jsonb, so one such character in one request fails its whole statement (and, in a
// batch, everyone else's); other control characters are never meant in a name, an email or a
// comment, and can rewrite an operator's terminal when printed. Tabs and line breaks stay.

const unwanted =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `text` without control characters (tab, line feed and carriage return kept) or lone surrogates. */
export function storableText(text: string): string {
  return text.replace(unwanted, '');
}

/** A schema's preprocess step from a cleaning: strings cleaned, anything else left for the schema to judge. */
const cleaning =
  (clean: (text: string) => string) =>
  (value: unknown): unknown =>
    typeof value === 'string' ? clean(value) : value;

/** For a schema's preprocess step: strings made storable. */
export const storable = cleaning(storableText);

// A name (a person's, a viewer's, a company's, a project's, a workspace's, a token's...) is one
// line: it is shown in lists, put in mail subjects and in copies' headers, where a line break or
// a tab is never meant and a CR/LF could start a header of its own (issue 45). So a name loses
// every C0 control (tab and line breaks too), DEL and every C1 control, besides what
// storableText drops, and what `spoofing` matches.
const notInAName = /[\u0000-\u001F\u007F-\u009F]/g;

// Text shown to strangers (names, a card's words, a community bio) loses the explicit bidi
// controls (embeddings, overrides and isolates, U+202A-202E and U+2066-2069): "\u202Enigol laPyaP"
// is stored as letters no check reads as a brand and shown as "PayPal login" (Trojan Source,
// CVE-2021-42574); letters carry their own direction, so Arabic or Hebrew reads the same without
// them. And it loses the invisible spaces (zero-width space, word joiner, byte order mark,
// Mongolian vowel separator), which make two texts that look alike differ; the zero-width joiner
// and non-joiner stay, as emoji sequences and Persian or Indic spelling need them.
const spoofing = /[\u202A-\u202E\u2066-\u2069\u200B\u2060\uFEFF\u180E]/g;

/** `text` fit to show to strangers: storable (line breaks kept), without bidi controls or invisible spaces. */
export const publicText = (text: string): string => storableText(text).replace(spoofing, '');

/** `text` fit to store as a name: storable, and without tab, line breaks or any other control character. */
export function storableName(text: string): string {
  return publicText(text).replace(notInAName, '');
}

/** For a name's schema: strings cleaned as a name. */
export const storableNameOf = cleaning(storableName);

/** A name's schema: cleaned as above, trimmed, then 1–`max` characters. */
export const nameText = (max: number) => z.preprocess(storableNameOf, z.string().trim().min(1).max(max));

/** Text of one or more lines shown to strangers (a bio): cleaned by publicText, trimmed, at most `max` characters. */
export const publicLines = (max: number) => z.preprocess(cleaning(publicText), z.string().trim().max(max));

/** A text of one or more lines (a comment, a note, a viewer's question): storable, trimmed, then 1–`max` characters. */
export const bodyText = (max: number) => z.preprocess(storable, z.string().trim().min(1).max(max));
