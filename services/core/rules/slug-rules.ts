import { readFileSync } from 'node:fs';
import { SLUG_FORMAT, SLUG_FORMAT_RULE } from '@demo-rooms/contract';
import { refused } from './errors.js';

// Slug rules (spec 2.2 and 7): format, reserved, impersonation and banned are refused with 422 on
// their merits. They name a project's room and a person's community handle alike, so they live
// below both areas; "taken" needs the database and lives with each one's SQL.

function words(name: string): Set<string> {
  const text = readFileSync(new URL(`./slug-words/${name}.txt`, import.meta.url), 'utf8');
  return new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
}

const reserved = words('reserved');
const impersonation = [...words('impersonation')];
const banned = words('banned');

/** Throws the spec's 422 for a slug that may not be used; returns quietly otherwise. */
export function checkSlug(slug: string): void {
  if (!SLUG_FORMAT.test(slug)) throw refused(422, 'format', SLUG_FORMAT_RULE);
  if (reserved.has(slug)) throw refused(422, 'reserved', `"${slug}" is kept by the platform`);
  const segments = slug.split('-');
  if (segments.some((s) => banned.has(s)) || banned.has(slug.replaceAll('-', '')))
    throw refused(422, 'banned', 'this name is not available');
  const borrowed = trustBorrowedBy(slug);
  if (borrowed) throw refused(422, 'impersonation', `"${borrowed}" borrows trust`);
}

/** The word that borrows trust in a slug, whole or as a part ("paypal-login", "securebank"). */
export function trustBorrowedBy(slug: string): string | undefined {
  const squashed = slug.replaceAll('-', '');
  return impersonation.find((w) => squashed.includes(w));
}
