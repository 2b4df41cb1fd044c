import { describe, expect, it } from 'vitest';
import { checkSlugWords, checkWords } from './listing-checks.js';
import { checkPage } from './page-checks.js';

// The listing checks as a table of cases a person would decide the same way (issue 18): what must
// list, what only warns, what blocks, with the reason it blocks for.

type Verdict = 'list' | 'warn' | `block:${string}`;
const verdict = (c: { blocked: { reason: string }[]; warnings: unknown[] }): Verdict =>
  c.blocked.length ? `block:${c.blocked[0].reason}` : c.warnings.length ? 'warn' : 'list';

describe('the words of a card', () => {
  const cases: [string, Verdict][] = [
    ['Acme CRM: follow up every deal', 'list'],
    ['Invoice tracker for small studios', 'list'],
    ['Scunthorpe United fixtures', 'list'],
    ['A classic assessment tool', 'list'],
    ['Export your pipeline to Google Sheets', 'warn'],
    ['Team login and roles, done right', 'warn'],
    ['Paypa1 checkout demo', 'block:impersonation'],
    ['PayPal login', 'block:impersonation'],
    ['Раураl wallet', 'block:impersonation'], // Cyrillic р, а, у
    ['Аpple ID recovery', 'block:impersonation'], // a Cyrillic А
    ['G00gle Workspace admin', 'block:impersonation'],
    ['Verify your account to keep access', 'block:phishing'],
    ['Your wallet has been suspended', 'block:phishing'],
    ['Enter your seed phrase to sync', 'block:phishing'],
    ['The shittiest demo ever', 'block:banned'],
    // Look-alike spellings (issue 28): read by the UTS #39 skeleton of Unicode's confusables data.
    ['PayPaI checkout', 'block:impersonation'], // a capital I for the l
    ['Pаypal wallet', 'block:impersonation'], // one Cyrillic а among Latin letters
    ['Gοogle Docs clone', 'block:impersonation'], // a Greek ο
    ['Micr0soft Teams admin', 'block:impersonation'],
    ['4pple store', 'block:impersonation'],
    ['Pay\u200dPal checkout', 'block:impersonation'], // a zero-width joiner inside
    ['Net\u00adflix party', 'block:impersonation'], // a soft hyphen inside
    ['ｐａｙｐａｌ wallet', 'block:impersonation'], // full-width letters
    // A right-to-left override shows its span turned around: read as it is shown.
    ['\u202Enigol laPyaP', 'block:impersonation'], // shown as "PayPal login"
    ['Deals \u202Etnuocca ruoy yfireV\u202C today', 'block:phishing'],
    ['GMAlL backup', 'block:impersonation'],
    ['Modern learning for small teams', 'list'],
    ['Illustrated icons library', 'list'],
    ['Paymo time tracking', 'list'],
  ];
  it.each(cases)('%s → %s', (text, expected) => {
    expect(verdict(checkWords('title', text))).toBe(expected);
  });

  it('names the part and the reason of each failure', () => {
    expect(checkWords('line', 'Paypa1 login').blocked[0]).toMatchObject({
      part: 'line',
      reason: 'impersonation',
      detail: expect.stringContaining('paypal'),
    });
  });

  it("checks a slug against the slug rules' words", () => {
    expect(verdict(checkSlugWords('acme-crm'))).toBe('list');
    expect(verdict(checkSlugWords('secure-portal'))).toBe('block:impersonation');
  });
});

describe('the pages of a static build', () => {
  const cases: [string, string, Verdict][] = [
    ['a product page', '<title>Acme CRM</title><h1>Deals</h1><p>Every deal in one place.</p>', 'list'],
    [
      'a page that mentions a password',
      '<title>Security</title><p>We never store your password in plain text; reset it from Settings.</p>',
      'list',
    ],
    ['a script that says password', '<title>App</title><script>const password = "x"</script><p>Hello</p>', 'list'],
    [
      'a login form posting a password',
      '<title>Sign in</title><form method="post" action="/session"><input name="email"><input type="password" name="pw"><button>Sign in</button></form>',
      'block:credentials',
    ],
    [
      'a form sent to another site',
      '<title>Newsletter</title><form action="https://collect.example-mail.xyz/s"><input name="email"></form>',
      'block:phishing',
    ],
    ['a look-alike brand in the title', '<title>Paypa1 — Sign in</title><p>Welcome</p>', 'block:impersonation'],
    ['phishing wording in the text', '<title>Notice</title><p>Unusual sign-in detected. Verify your account now.</p>', 'warn'],
  ];
  it.each(cases)('%s → %s', (_name, html, expected) => {
    expect(verdict(checkPage(html, '/index.html'))).toBe(expected);
  });
});
