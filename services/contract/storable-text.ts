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

/** For a schema's preprocess step: strings cleaned, anything else left for the schema to judge. */
export const storable = (value: unknown): unknown => (typeof value === 'string' ? storableText(value) : value);
