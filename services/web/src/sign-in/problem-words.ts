// What went wrong with a provider sign-in, said on /login: the api's callback sends a browser here
// with `?problem=<reason>` instead of showing its JSON refusal (docs/decisions/sign-in-providers-and-passkeys.md).

const words: Record<string, string> = {
  state: 'That sign-in took too long or was already used. Try again.',
  provider:
    'The provider did not vouch for an email address, or refused the sign-in. Sign in with an emailed link, then connect the provider from your account.',
  'only-way-in': 'That is your only way in: add a passkey or connect another provider first.',
  'not-found': 'That sign-in provider is not set up on this platform. Use an emailed link or a passkey.',
  rate: 'Too many sign-in attempts from here. Wait a few minutes, then try again.',
};

export function problemWords(search: string): string {
  const problem = new URLSearchParams(search).get('problem');
  if (!problem) return '';
  return words[problem] ?? 'The sign-in did not finish. Try again, or use an emailed link.';
}
