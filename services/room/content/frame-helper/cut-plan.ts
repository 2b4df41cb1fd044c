// What the picture needs of a heavy page. A page of thousands of elements (Node-RED's editor,
// a long table) has most of them out of view or hidden, and the library clones each with its
// computed styles: 27 s for 14,000 elements. Only the elements whose box (with what overflows
// it) meets the viewport are cloned, with their ancestors (`keep`). Each element left out that
// takes room in its parent's layout gets an empty, invisible stand-in of its size in the clone
// (`cuts`, by parent: after how many kept siblings, and its box), so what is in view stays where
// the viewer sees it: rows above the scroll, a table's other rows, a flex line's other items.
// Part of frame-helper.js.

/** Where a stand-in goes among its parent's kept children, and its tag and style. */
export type Cut = { after: number; tag: string; box: string };

const DEFS = 'defs,clipPath,mask,pattern,marker,symbol,linearGradient,radialGradient,filter';
/** How far outside the viewport a box still counts as in view (shadows, outlines, small overhangs). */
const MARGIN = 64;
/** The mark a parent of left-out elements carries while the page is cloned. */
export const CUT = 'data-pp-cut';

/**
 * Whether a box at `left, top` of `w × h` (its overflow counted) meets a viewport of
 * `width × height`, give or take MARGIN. An empty box meets nothing.
 */
export function meetsViewport(left: number, top: number, w: number, h: number, width: number, height: number): boolean {
  return (w > 0 || h > 0) && left - MARGIN < width && top - MARGIN < height && left + w + MARGIN > 0 && top + h + MARGIN > 0;
}

/** The elements in view, with their ancestors (and all of SVG's definitions). */
function elementsInView(): Set<Element> {
  const keep = new Set<Element>();
  const width = innerWidth;
  const height = innerHeight;
  for (const el of document.getElementsByTagName('*')) {
    if (keep.has(el)) continue;
    // SVG's paint servers, clips, masks and symbols draw where they are used, not where they are.
    if (el instanceof SVGElement && el.closest(DEFS)) {
      keepUp(keep, el);
      continue;
    }
    const box = el.getBoundingClientRect();
    const w = Math.max(box.width, el.scrollWidth || 0);
    const h = Math.max(box.height, el.scrollHeight || 0);
    if (meetsViewport(box.left, box.top, w, h, width, height)) keepUp(keep, el);
  }
  return keep;
}

function keepUp(keep: Set<Element>, el: Element) {
  for (let up: Element | null = el; up && !keep.has(up); up = up.parentElement) keep.add(up);
}

function keepAll(keep: Set<Element>, el: Element) {
  keepUp(keep, el);
  for (const inner of el.getElementsByTagName('*')) keep.add(inner);
}

export function cutPlan() {
  const keep = elementsInView();
  const cuts = new Map<Element, Cut[]>();
  for (const parent of keep) {
    const list = cutsOf(keep, parent);
    if (list) cuts.set(parent, list);
  }
  return { keep, cuts };
}

/** The stand-ins `parent`'s left-out children need, or null (none, or no count to place them by). */
function cutsOf(keep: Set<Element>, parent: Element): Cut[] | null {
  // A shadow host's clone holds its shadow tree, and a slot its assigned nodes: no count of
  // children to place stand-ins by. (Shadow trees are cloned whole: see the filter.)
  if (parent.shadowRoot || parent.namespaceURI !== 'http://www.w3.org/1999/xhtml') return null;
  let kept = 0;
  let list: Cut[] | null = null;
  for (const child of parent.children) {
    if (child.localName === 'slot') return null;
    if (keep.has(child)) {
      // The library leaves the page's scripts and style sheets out of the clone.
      if (child.tagName !== 'SCRIPT' && child.tagName !== 'STYLE') kept++;
      continue;
    }
    if (child.hasAttribute('data-pp-ring') || child.tagName === 'SCRIPT' || child.tagName === 'STYLE') continue;
    const style = getComputedStyle(child);
    if (style.display === 'none' || style.position === 'absolute' || style.position === 'fixed') continue;
    // Inline boxes flow with the text around them, and contents have no box of their own:
    // kept whole, as they are few where their parent is in view.
    if (style.display === 'inline' || style.display === 'contents') {
      keepAll(keep, child);
      kept++;
      continue;
    }
    (list ??= []).push({ after: kept, tag: child.localName, box: standInStyle(child, style) });
  }
  return list;
}

/** The style of an empty box of `w × h` taking the room an element of `style` takes, showing nothing. */
export function standInDeclarations(
  style: Pick<CSSStyleDeclaration, 'display' | 'margin' | 'float' | 'clear' | 'order' | 'alignSelf' | 'gridRow' | 'gridColumn'>,
  w: number,
  h: number,
): string {
  return [
    `display:${style.display}`,
    'box-sizing:border-box',
    `width:${w}px`,
    `height:${h}px`,
    'min-width:0',
    'min-height:0',
    'max-width:none',
    'max-height:none',
    'padding:0',
    'border:0',
    `margin:${style.margin}`,
    `float:${style.float}`,
    `clear:${style.clear}`,
    'flex:0 0 auto',
    `order:${style.order}`,
    `align-self:${style.alignSelf}`,
    `grid-row:${style.gridRow}`,
    `grid-column:${style.gridColumn}`,
    'visibility:hidden',
    'overflow:hidden',
    'list-style:none',
    'position:static',
  ].join(';');
}

/** An empty box taking the room `el` takes in its parent's layout, showing nothing. */
function standInStyle(el: Element, style: CSSStyleDeclaration): string {
  const box = el.getBoundingClientRect();
  // Its layout size, before any transform.
  const w = el instanceof HTMLElement ? el.offsetWidth : box.width;
  const h = el instanceof HTMLElement ? el.offsetHeight : box.height;
  return standInDeclarations(style, w, h);
}

/** The stand-ins put into the clone, by the mark its parent carries for the moment of the capture. */
export function putStandIns(root: Element, cuts: Cut[][]) {
  const marked = root.hasAttribute && root.hasAttribute(CUT) ? [root] : [];
  marked.push(...root.querySelectorAll(`[${CUT}]`));
  for (const parent of marked) {
    const list = cuts[Number(parent.getAttribute(CUT))] || [];
    parent.removeAttribute(CUT);
    const kept = [...parent.children];
    for (const cut of list) {
      const standIn = document.createElement(cut.tag);
      standIn.setAttribute('style', cut.box);
      parent.insertBefore(standIn, kept[cut.after] || null);
    }
  }
}
