import { readFileSync } from 'node:fs';
import unhomoglyph from 'unhomoglyph';
import { RegExpMatcher, englishDataset, englishRecommendedTransformers } from 'obscenity';
import { trustBorrowedBy } from '../../core/rules/slug-rules.js';

// The listing checks on a card's words (spec 2.9, issue 18): impersonation of well-known brands
// (look-alike letters included: the UTS #39 skeleton from Unicode's confusables data, invisible
// characters, digits and signs that stand in for letters), phishing wording, banned words (`obscenity`'s English set,
// which knows "Scunthorpe" is a town), and the slug rules' words that borrow trust. A failure
// blocks and names the part and the reason; a weaker finding is a warning.

export type Part = 'title' | 'line' | 'slug' | 'cover' | 'pages' | 'name' | 'brand' | 'bio';
export type Reason = 'impersonation' | 'phishing' | 'banned' | 'credentials' | 'file' | 'unread';
export type Finding = { part: Part; reason: Reason; detail: string };
export interface Checked {
  blocked: Finding[];
  warnings: Finding[];
}

const listOf = (name: string) =>
  readFileSync(new URL(`./words/${name}.txt`, import.meta.url), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

const brands = listOf('brands');
const phishing = listOf('phishing').map((p) => new RegExp(`\\b${p}\\b`, 'i'));
const credentialWords = listOf('credential-words');
const profanity = new RegExpMatcher({ ...englishDataset.build(), ...englishRecommendedTransformers });

/**
 * Signs and digits that stand in for letters ("G00gle", "$tripe", "4pple") beyond what the
 * Unicode confusables data already maps (it reads 0 as O and 1 as l, but leaves 3, 4, 5, 7, $, @).
 */
const standIns: Record<string, string> = { 3: 'e', 4: 'a', 5: 's', 7: 't', $: 's', '@': 'a', '|': 'l', '!': 'l' };

/** Characters nobody sees (zero-width joiners and spaces, soft hyphens, variation selectors...). */
const invisible = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The text in the order a reader sees it where a right-to-left override (U+202E) turns Latin
 * letters around: each span from it to its pop (U+202C) or the line's end reversed. Names and
 * card words lose the override when stored; a page's text keeps what its builder wrote, so
 * "\u202Enigol laPyaP" there is checked as the "PayPal login" it shows.
 */
export const asShown = (text: string): string =>
  text.includes('\u202E') ? text.replace(/\u202E([^\u202C\n]*)/g, (_, span: string) => [...span].reverse().join('')) : text;

/**
 * The UTS #39 skeleton of the text, read case-blind: invisible characters dropped, NFKC (full-width
 * and styled letters as plain ones), each confusable as its prototype (`unhomoglyph`, which is
 * Unicode's confusables.txt: Cyrillic а and Greek ο as a and o, capital I as l, m as rn),
 * lower-cased and mapped again (a lower-case look-alike of a capital), stand-ins as their letters,
 * and i read as l (the skeleton keeps them apart; a reader of "PayPaI" does not). Only the
 * letters a–z are kept.
 */
export function skeletonOf(text: string): string {
  const once = unhomoglyph(text.replace(invisible, '').normalize('NFKC'));
  const twice = unhomoglyph(once.toLowerCase()).toLowerCase();
  return [...twice]
    .map((c) => standIns[c] ?? c)
    .join('')
    .replace(/i/g, 'l')
    .replace(/[^a-z]/g, '');
}

/**
 * Letters as written, lower case, only spaces and signs gone: a Cyrillic а, a full-width letter or
 * a zero-width joiner stays and keeps the brand from reading plainly.
 */
const plainOf = (text: string) => text.toLowerCase().replace(/[\s\p{P}\p{S}]/gu, '');

const brandSkeletons = brands.map((brand) => ({ brand, skeleton: skeletonOf(brand) }));

/** A brand the text spells in look-alike letters (and not plainly): "PayPaI", "Pаypal", "Pay‍Pal". */
export function lookAlikeBrand(written: string): string | undefined {
  const text = asShown(written);
  const seen = skeletonOf(text);
  const plain = plainOf(text);
  return brandSkeletons.find((b) => seen.includes(b.skeleton) && !plain.includes(b.brand))?.brand;
}

/** Words separated by single spaces, for phrase matching. */
const wordsOf = (text: string) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}-]+/gu, ' ')
    .trim();

/** Checks public words (a card's title or line, the project's name...): what blocks and what warns. */
export function checkWords(part: Part, written: string): Checked {
  const text = asShown(written);
  const blocked: Finding[] = [];
  const warnings: Finding[] = [];
  const seen = skeletonOf(text);
  const plain = plainOf(text);
  const words = wordsOf(text);
  const asksForAWayIn = credentialWords.some((w) => new RegExp(`\\b${w}\\b`).test(words));
  for (const { brand, skeleton } of brandSkeletons) {
    if (!seen.includes(skeleton)) continue;
    if (!plain.includes(brand)) blocked.push({ part, reason: 'impersonation', detail: `look-alike letters spell "${brand}"` });
    else if (asksForAWayIn) blocked.push({ part, reason: 'impersonation', detail: `names "${brand}" beside words that ask for a way in` });
    else warnings.push({ part, reason: 'impersonation', detail: `names "${brand}": make sure the demo is not presented as theirs` });
  }
  const phrase = phishing.find((p) => p.test(words));
  if (phrase) blocked.push({ part, reason: 'phishing', detail: `reads like phishing: "${phrase.exec(words)![0]}"` });
  else if (asksForAWayIn)
    warnings.push({
      part,
      reason: 'credentials',
      detail: 'asks for a sign-in or a password; a listing should show the product, not collect them',
    });
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
export function checkPageText(written: string, where: string): Checked {
  const text = asShown(written);
  const warnings: Finding[] = [];
  const words = wordsOf(text);
  const phrase = phishing.find((p) => p.test(words));
  if (phrase) warnings.push({ part: 'pages', reason: 'phishing', detail: `${where} reads like phishing: "${phrase.exec(words)![0]}"` });
  if (profanity.hasMatch(text))
    warnings.push({ part: 'pages', reason: 'banned', detail: `${where} contains a word the community does not list` });
  return { blocked: [], warnings };
}

/** A page's title or heading passing itself off as a brand by look-alike letters blocks. */
export function checkPageTitle(text: string, where: string): Checked {
  const brand = lookAlikeBrand(text);
  return {
    blocked: brand ? [{ part: 'pages', reason: 'impersonation', detail: `${where}: look-alike letters spell "${brand}"` }] : [],
    warnings: [],
  };
}
