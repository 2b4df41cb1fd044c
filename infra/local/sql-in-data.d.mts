// Types of sql-in-data.mjs, for test/architecture/sql-in-data.test.ts.
export interface AllowedQuery {
  file: string;
  text?: string;
  reason: string;
}
export const ALLOWED: AllowedQuery[];
export function queriesIn(fileName: string, text: string): { line: number; text: string }[];
export function sqlOutsideData(root: string, folders: string[], allowed?: AllowedQuery[]): string[];
