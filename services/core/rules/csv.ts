// CSV as RFC 4180 writes it (CRLF line ends, a field quoted when it holds a comma, a quote or a
// line break, its quotes doubled), for exports a spreadsheet opens. A text field that starts
// with = + - @ (or a tab or carriage return) is read as a formula by Excel, LibreOffice and
// Google Sheets (OWASP "CSV Injection"): it gets a leading apostrophe, which they show as text.

/** A value of a row: text is guarded against formulas; numbers are written as they are. */
export type CsvValue = string | number | null;

const formulaStart = /^[=+\-@\t\r]/;

/** One field: null is empty, a number is itself, text is guarded and quoted when it must be. */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, ended by CRLF. */
export const csvRow = (values: readonly CsvValue[]) => `${values.map(csvField).join(',')}\r\n`;
