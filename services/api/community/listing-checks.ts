import { readFileSync } from 'node:fs';
import { remove as confusableSkeleton } from 'confusables';
import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';
import { trustBorrowedBy } from '../../core/slug-rules.js';

// The listing checks on a card's words (spec 2.9, issue 18): impersonation of well-known brands
// (look-alike letters included: Unicode confusables by the `confusables` skeleton, digits and
// signs that stand in for letters), phishing wording, banned words (`obscenity`'s English set,
// which knows "Scunthorpe" is a town), and the slug rules' words that borrow trust. A failure
// blocks and names the part and the reason; a weaker finding is a warning.

export type Part = 'title' | 'line' | 'slug' | 'cover' | 'pages';
export type Reason = 'impersonation' | 'phishing' | 'banned' | 'credentials' | 'file';
export type Finding = { part: Part; reason: Reason; detail: string };
export interface Checked { blocked: Finding[]; warnings: Finding[] }

const listOf = (name: string) =>
  readFileSync(new URL(`./words/${name}.txt`, import.meta.url), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

const brands = listOf('brands');
const phishing = listOf('phishing').map((p) => new RegExp(`\\b${p}\\b`, 'i'));
const credentialWords = listOf('credential-words');
const profanity = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

/** Signs that stand in for letters in look-alike names ("Paypa1", "G00gle", "$tripe"). */
const standIns: Record<string, string> = { 0: 'o', 1: 'l', 3: 'e', 4: 'a', 5: 's', 7: 't', $: 's', '@': 'a', '|': 'l', '!': 'i' };

/** Letters only, lower case: how a word reads once spaces, dots and hyphens are gone. */
const squash = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');
/** What the text looks like to a reader: confusable letters and stand-ins as the letters they imitate. */
const looksLike = (text: string) => squash([...confusableSkeleton(text.normalize('NFKC'))].map((c) => standIns[c] ?? c).join(''));
/** Words separated by single spaces, for phrase matching. */
const wordsOf = (text: string) => text.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}-]+/gu, ' ').trim();

/** Checks public words (a card's title or line): what blocks and what warns. */
export function checkWords(part: 'title' | 'line', text: string): Checked {
  const blocked: Finding[] = [];
  const warnings: Finding[] = [];
  const plain = squash(text);
  const seen = looksLike(text);
  const words = wordsOf(text);
  const asksForAWayIn = credentialWords.some((w) => new RegExp(`\\b${w}\\b`).test(words));
  for (const brand of brands) {
    if (!seen.includes(brand)) continue;
    if (!plain.includes(brand)) blocked.push({ part, reason: 'impersonation', detail: `look-alike letters spell "${brand}"` });
    else if (asksForAWayIn) blocked.push({ part, reason: 'impersonation', detail: `names "${brand}" beside words that ask for a way in` });
    else warnings.push({ part, reason: 'impersonation', detail: `names "${brand}": make sure the demo is not presented as theirs` });
  }
  const phrase = phishing.find((p) => p.test(words));
  if (phrase) blocked.push({ part, reason: 'phishing', detail: `reads like phishing: "${phrase.exec(words)![0]}"` });
  else if (asksForAWayIn) warnings.push({ part, reason: 'credentials', detail: 'asks for a sign-in or a password; a listing should show the product, not collect them' });
  if (profanity.hasMatch(text)) blocked.push({ part, reason: 'banned', detail: 'contains a word the community does not list' });
  return { blocked, warnings };
}

/** The slug rules' words that borrow trust (a slug made before a word joined the list). */
export function checkSlugWords(slug: string): Checked {
  const borrowed = trustBorrowedBy(slug);
  return { blocked: borrowed ? [{ part: 'slug', reason: 'impersonation', detail: `"${borrowed}" borrows trust` }] : [], warnings: [] };
}

export const merge = (...all: Checked[]): Checked => ({ blocked: all.flatMap((c) => c.blocked), warnings: all.flatMap((c) => c.warnings) });

/** Text a page shows, checked more lightly than a card: phishing wording and banned words warn. */
export function checkPageText(text: string, where: string): Checked {
  const warnings: Finding[] = [];
  const words = wordsOf(text);
  const phrase = phishing.find((p) => p.test(words));
  if (phrase) warnings.push({ part: 'pages', reason: 'phishing', detail: `${where} reads like phishing: "${phrase.exec(words)![0]}"` });
  if (profanity.hasMatch(text)) warnings.push({ part: 'pages', reason: 'banned', detail: `${where} contains a word the community does not list` });
  return { blocked: [], warnings };
}

/** A page's title or heading passing itself off as a brand by look-alike letters blocks. */
export function checkPageTitle(text: string, where: string): Checked {
  const plain = squash(text);
  const seen = looksLike(text);
  const brand = brands.find((b) => seen.includes(b) && !plain.includes(b));
  return { blocked: brand ? [{ part: 'pages', reason: 'impersonation', detail: `${where}: look-alike letters spell "${brand}"` }] : [], warnings: [] };
}
