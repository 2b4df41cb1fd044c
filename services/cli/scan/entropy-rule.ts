// Loaded by the scan thread under Node's own type stripping too (lint-source.ts): erasable TypeScript
// only, and no relative imports.
import type { SecretLintRuleCreator, SecretLintSourceCode } from '@secretlint/types';

// The preset knows the shapes of named providers' keys. This rule catches the rest: a value with
// the look of a random key (long, varied characters) assigned to a name that says it is secret
// (`STRIPE_SECRET_KEY = "…"`, `apiToken: '…'`, `DB_PASSWORD=…`). Both halves are required, so
// hashes, ids and minified code next to ordinary names stay quiet.

export const ENTROPY_RULE_ID = 'pitch/high-entropy-assignment';

// The secret word, the rest of the name, an optional closing quote, `=`, `:`, `=>` or `:=`, then
// the value, quoted or not. The match starts at the word (a leading `[\w.-]*` would backtrack on
// every character of minified code); the name's start is found by walking back from it.
const SECRET_WORD = String.raw`(?:secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|signing[_-]?key|credentials?|auth[_-]?key)`;
const ASSIGNMENT = new RegExp(
  String.raw`${SECRET_WORD}[A-Za-z0-9_]*["']?\s*(?:=>|:=|=|:)\s*(["'\x60]?)([A-Za-z0-9+/=_\-.~]{16,512})\1`,
  'gi',
);
const NAME_CHAR = /[A-Za-z0-9_.-]/;

/** The whole name an assignment's secret word sits in: `STRIPE_SECRET_KEY` around `SECRET`. */
function nameAt(content: string, start: number, match: string): string {
  let from = start;
  while (from > 0 && NAME_CHAR.test(content[from - 1])) from--;
  return content.slice(from, start) + /^[A-Za-z0-9_]*/.exec(match)![0];
}
const PLACEHOLDER = /example|sample|dummy|placeholder|changeme|your[_-]|xxxx|\*\*\*|\.\.\.|^process\.env|^import\.meta|^\$\{/i;

/** Shannon entropy of the value's characters, in bits per character. */
export function entropyBits(value: string): number {
  const counts = new Map<string, number>();
  for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/**
 * Whether a value looks like a random key: letters and digits mixed, and about as varied as random
 * text of its alphabet (hex carries at most 4 bits a character, base64 up to 6).
 */
export function looksRandom(value: string): boolean {
  if (PLACEHOLDER.test(value)) return false;
  if (!/[0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
  // A dotted name such as `window.config.apiToken` is code, not a key.
  if (/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)+$/.test(value)) return false;
  const hex = /^[0-9a-f]+$/i.test(value);
  return entropyBits(value) >= (hex ? 3.0 : 3.6);
}

const messages = {
  HighEntropyAssignment: {
    en: (props: { NAME: string }) => `a random-looking value is assigned to ${props.NAME}`,
  },
};

export const entropyRule: SecretLintRuleCreator = {
  messages,
  meta: {
    id: ENTROPY_RULE_ID,
    recommended: true,
    type: 'scanner',
    supportedContentTypes: ['text'],
  },
  create(context) {
    const t = context.createTranslator(messages);
    return {
      file(source: SecretLintSourceCode) {
        for (const match of source.content.matchAll(ASSIGNMENT)) {
          const value = match[2];
          if (!looksRandom(value)) continue;
          const start = match.index + match[0].lastIndexOf(value);
          const name = nameAt(source.content, match.index, match[0]);
          context.report({ message: t('HighEntropyAssignment', { NAME: name }), range: [start, start + value.length] });
        }
      },
    };
  },
};
