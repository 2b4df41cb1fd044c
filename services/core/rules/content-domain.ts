import { getDomain, getPublicSuffix } from 'tldts';

// Content origins must not share the platform's registrable domain ("site"): a build's script
// or a copy's Set-Cookie could then set a cookie with Domain=<that domain> which the platform
// would receive (cookie tossing), and the content would count as same-site for SameSite=Lax.
// The exception is a content domain whose parent is itself a public suffix (on the Public
// Suffix List, private section included, e.g. a domain registered there for this purpose):
// then every content host is a registrable domain of its own. Checked with tldts, a maintained
// PSL library; the list ships inside it.

/** Why `contentOrigin` (a template with `{slug}`) may not serve beside `publicUrl`; null when it may. */
export function contentDomainProblem(publicUrl: string, contentOrigin: string): string | null {
  if (!contentOrigin.includes('{slug}')) return 'must hold {slug} in its host, so that every project gets an origin of its own';
  const sample = new URL(contentOrigin.replace('{slug}', 'slug-sample'));
  if (!sample.hostname.includes('slug-sample')) return 'must hold {slug} in its host, not its path';
  const platformHost = new URL(publicUrl).hostname;
  if (sample.hostname === platformHost) return "must not be the platform's own host";
  const options = { allowPrivateDomains: true };
  const platformSite = getDomain(platformHost, options);
  const contentSite = getDomain(sample.hostname, options);
  if (!platformSite || platformSite !== contentSite) return null;
  const parent = sample.hostname.slice(sample.hostname.indexOf('.') + 1);
  if (getPublicSuffix(sample.hostname, options) === parent) return null;
  return `shares the platform's registrable domain ${platformSite}: a build could set cookies the platform receives; put content origins on a domain of their own (or under a public suffix)`;
}
