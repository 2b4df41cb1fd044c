// Types of web-app.mjs, for the tests that import it (the build budget checks its hash).
export function sourcesHash(): string;
export function ensureWebApp(log: (line: string) => void): Promise<void>;
