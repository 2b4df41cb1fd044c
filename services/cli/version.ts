import { readFileSync } from 'node:fs';

// Read once from the package that ships the tool, for the User-Agent the platform records with a
// device login (the session list shows it).
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

export const version = pkg.version;
export const userAgent = `pitch/${pkg.version} node/${process.versions.node} (${process.platform})`;
