import { CAPTURE_LIBRARY_PATH, FRAME_HELPER_PATH } from './frame-helper-tag.js';

// Whether a page's Content-Security-Policy lets the room's capture agent run: the frame helper,
// put in the page's head as `<script src="/__pp/frame-helper.js">` (parser-inserted, same origin,
// no nonce, no integrity), and the screenshot library it imports from the same origin when a
// comment first asks for a picture. A container copy sends its own policy, so a comment whose
// frame never answers can then say `blocked` rather than `no-answer` (capture_blocks).
//
// The rules are CSP Level 3's (https://www.w3.org/TR/CSP3/): "parse a serialized CSP", the script
// directives' pre-request check, "does url match expression in origin". The npm parsers found
// (content-security-policy-parser and the like) split a policy into directives, the easy part;
// the matching is the part that decides, and it is written here whole.

/** A policy's directives, names lowercased, each with its source list; the first of a name wins. */
export type Policy = Map<string, string[]>;

/**
 * The policies of Content-Security-Policy header values: each value may carry several policies
 * joined by commas (the way several headers of one name arrive joined), every one enforced.
 */
export function parsePolicies(values: string[]): Policy[] {
  return values.flatMap((value) => value.split(',')).map(parsePolicy);
}

/** One serialized policy (CSP3 §2.2.1): directives split on ';', unknown or repeated ones ignored. */
export function parsePolicy(serialized: string): Policy {
  const policy: Policy = new Map();
  for (const token of serialized.split(';')) {
    const [name, ...value] = token.trim().split(/[\t\n\f\r ]+/);
    if (!name || !/^[a-z0-9-]+$/i.test(name)) continue;
    const key = name.toLowerCase();
    if (!policy.has(key)) policy.set(key, value);
  }
  return policy;
}

/**
 * Whether the capture agent may run on a page from `origin` (`http://host:port`) served with
 * these enforced Content-Security-Policy header values. Report-only policies do not belong here:
 * they block nothing.
 */
export function agentAllowedBy(policies: string[], origin: string): boolean {
  const parsed = parsePolicies(policies);
  const helper = new URL(FRAME_HELPER_PATH, origin);
  const library = new URL(CAPTURE_LIBRARY_PATH, origin);
  return parsed.every(
    (policy) =>
      scriptsRun(policy) &&
      scriptAllowed(policy, helper, origin, true) &&
      // The library is imported by the helper's own code: not parser-inserted.
      scriptAllowed(policy, library, origin, false),
  );
}

/** A `sandbox` directive without allow-scripts stops every script of the page. */
function scriptsRun(policy: Policy): boolean {
  const sandbox = policy.get('sandbox');
  return !sandbox || sandbox.some((flag) => flag.toLowerCase() === 'allow-scripts');
}

/** The directive a script element's fetch is checked against: script-src-elem, then script-src, then default-src. */
function scriptSources(policy: Policy): string[] | undefined {
  return policy.get('script-src-elem') ?? policy.get('script-src') ?? policy.get('default-src');
}

/** CSP3 §6.1.1.1, the script directives' pre-request check, for a script without nonce or integrity. */
function scriptAllowed(policy: Policy, url: URL, origin: string, parserInserted: boolean): boolean {
  const sources = scriptSources(policy);
  if (!sources) return true;
  // 'strict-dynamic' trusts only nonces, hashes and what trusted scripts load: the host and
  // scheme sources, 'self' and * of the list no longer count.
  if (sources.some((s) => s.toLowerCase() === "'strict-dynamic'")) return !parserInserted;
  return sourceListMatches(sources, url, new URL(origin));
}

/** CSP3 §6.7.2.5: an empty list, or 'none' alone, matches nothing. */
function sourceListMatches(sources: string[], url: URL, origin: URL): boolean {
  if (sources.length === 0 || (sources.length === 1 && sources[0].toLowerCase() === "'none'")) return false;
  return sources.some((source) => expressionMatches(source, url, origin));
}

const SCHEME_SOURCE = /^([a-z][a-z0-9+.-]*):$/i;
// scheme-part "://" (optional), host-part, ":" port-part (optional), path-part (optional).
const HOST_SOURCE = /^(?:([a-z][a-z0-9+.-]*):\/\/)?(\*|(?:\*\.)?[a-z0-9-]+(?:\.[a-z0-9-]+)*)(?::(\*|\d+))?(\/[^;,\s]*)?$/i;

/** CSP3 §6.7.2.8, "does url match expression in origin" (no redirects). */
export function expressionMatches(expression: string, url: URL, origin: URL): boolean {
  const urlScheme = url.protocol.slice(0, -1);
  if (expression === '*') return /^(https?|wss?)$/.test(urlScheme) || url.protocol === origin.protocol;
  const scheme = SCHEME_SOURCE.exec(expression);
  if (scheme) return schemePartMatches(scheme[1].toLowerCase(), urlScheme);
  if (expression.toLowerCase() === "'self'") return selfMatches(url, origin);
  const host = HOST_SOURCE.exec(expression);
  if (!host) return false; // a keyword, nonce or hash: none of them names a plain script
  const [, schemePart, hostPart, portPart, pathPart] = host;
  if (schemePart) {
    if (!schemePartMatches(schemePart.toLowerCase(), urlScheme)) return false;
  } else if (origin.protocol === 'http:') {
    if (!/^(https?|wss?)$/.test(urlScheme)) return false;
  } else if (url.protocol !== origin.protocol) {
    return false;
  }
  return (
    hostPartMatches(hostPart.toLowerCase(), url.hostname.toLowerCase()) &&
    portPartMatches(portPart, url) &&
    pathPartMatches(pathPart ?? '', url.pathname)
  );
}

/** CSP3 §6.7.2.9: the same scheme, or a more secure one (http → https, ws → wss). */
function schemePartMatches(a: string, b: string): boolean {
  return a === b || (a === 'http' && b === 'https') || (a === 'ws' && /^(wss|https?)$/.test(b)) || (a === 'wss' && b === 'https');
}

function hostPartMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  // `*.example.com` matches any subdomain of example.com, and not example.com itself.
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1));
  return pattern === host;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

/** CSP3 §6.7.2.11: no port means the scheme's default one. */
function portPartMatches(port: string | undefined, url: URL): boolean {
  if (port === '*') return true;
  const urlPort = url.port || DEFAULT_PORTS[url.protocol] || '';
  return (port ?? DEFAULT_PORTS[url.protocol] ?? '') === urlPort;
}

/** CSP3 §6.7.2.12: a path ending in '/' is a prefix, any other must match whole. */
function pathPartMatches(path: string, urlPath: string): boolean {
  if (!path || path === '/') return true;
  const exact = !path.endsWith('/');
  const a = path.split('/');
  const b = urlPath.split('/');
  if (a.length > b.length || (exact && a.length !== b.length)) return false;
  if (!exact) a.pop();
  return a.every((piece, i) => safeDecode(piece) === safeDecode(b[i]));
}

/** CSP3 §6.7.2.8 step 4: the page's own origin, or the same host upgraded to a secure scheme. */
function selfMatches(url: URL, origin: URL): boolean {
  if (url.origin === origin.origin) return true;
  if (url.hostname !== origin.hostname) return false;
  const upgraded = (origin.protocol === 'http:' && url.protocol === 'https:') || (origin.protocol === 'ws:' && url.protocol === 'wss:');
  return upgraded && (url.port === origin.port || !url.port);
}

function safeDecode(piece: string): string {
  try {
    return decodeURIComponent(piece);
  } catch {
    return piece;
  }
}
