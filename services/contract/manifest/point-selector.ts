import { parseDocument } from 'htmlparser2';
import type { ChildNode, Element } from 'domhandler';

// Whether a story step's `point` (a CSS selector) can find anything in a static build's page,
// for `pitch validate`'s note. Judged for the selectors a person usually writes: a compound of
// a tag, #id, .classes and [attribute] or [attribute=value] tests, or several of those joined by
// spaces (descendants). Anything richer (>, +, ~, pseudo-classes) cannot be judged here: the
// answer is then `unknown`, and no note is made, as the ring is best effort anyway.

type Simple = { tag?: string; id?: string; classes: string[]; attrs: { name: string; value?: string }[] };

/** The selector as compounds from the outermost to the element itself; null when it is richer than that. */
export function parseSimpleSelector(selector: string): Simple[] | null {
  const parts = selector.trim().split(/\s+/);
  const out: Simple[] = [];
  for (const part of parts) {
    const m = /^([a-zA-Z][\w-]*|\*)?((?:#[\w-]+|\.[\w-]+|\[[\w-]+(?:=(?:"[^"]*"|'[^']*'|[\w-]+))?\])*)$/.exec(part);
    if (!m || (!m[1] && !m[2])) return null;
    const simple: Simple = { tag: m[1] && m[1] !== '*' ? m[1].toLowerCase() : undefined, classes: [], attrs: [] };
    for (const t of m[2].match(/#[\w-]+|\.[\w-]+|\[[^\]]+\]/g) ?? []) {
      if (t.startsWith('#')) simple.id = t.slice(1);
      else if (t.startsWith('.')) simple.classes.push(t.slice(1));
      else {
        const [name, raw] = t.slice(1, -1).split('=');
        simple.attrs.push({ name: name.toLowerCase(), value: raw?.replace(/^["']|["']$/g, '') });
      }
    }
    out.push(simple);
  }
  return out;
}

const matches = (el: Element, s: Simple) =>
  (!s.tag || el.name.toLowerCase() === s.tag) &&
  (!s.id || el.attribs.id === s.id) &&
  s.classes.every((c) => (el.attribs.class ?? '').split(/\s+/).includes(c)) &&
  s.attrs.every((a) => a.name in el.attribs && (a.value === undefined || el.attribs[a.name] === a.value));

const isElement = (n: ChildNode): n is Element => n.type === 'tag' || n.type === 'script' || n.type === 'style';

/**
 * `found` or `missing` in the HTML text; `unknown` when the selector is beyond what is judged here.
 *
 * One pass over the page, iterative: each element carries how many of the selector's leading
 * compounds its ancestors matched. With descendant steps only, matching a compound at the highest
 * ancestor that can is never worse than lower down, so that one count per element decides. A
 * recursive walk that tried both (match here, or start afresh below) took time exponential in the
 * selector's length and overflowed the stack on a deeply nested page.
 */
export function selectorInHtml(selector: string, html: string): 'found' | 'missing' | 'unknown' {
  const chain = parseSimpleSelector(selector);
  if (!chain) return 'unknown';
  const last = chain.length - 1;
  const stack: { node: ChildNode; matched: number }[] = parseDocument(html).children.map((node) => ({ node, matched: 0 }));
  while (stack.length > 0) {
    const { node, matched } = stack.pop()!;
    if (!isElement(node)) continue;
    if (matched === last && matches(node, chain[last])) return 'found';
    const below = matched < last && matches(node, chain[matched]) ? matched + 1 : matched;
    for (const child of node.children) stack.push({ node: child, matched: below });
  }
  return 'missing';
}
