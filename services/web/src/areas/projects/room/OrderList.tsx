import type { ReactNode } from 'react';

/** Moves the item at `from` one place up (-1) or down (+1). */
export function moved<T>(list: T[], from: number, by: -1 | 1): T[] {
  const to = from + by;
  if (to < 0 || to >= list.length) return list;
  const next = [...list];
  [next[from], next[to]] = [next[to], next[from]];
  return next;
}

/**
 * An ordered list with Move up / Move down buttons on each item: plain buttons, so the keyboard
 * and screen readers reorder as the mouse does. Each button names its item.
 */
export function OrderList<T>({
  items,
  name,
  keyOf,
  onMove,
  extra,
  busy,
  label,
}: {
  items: T[];
  name: (item: T) => string;
  keyOf: (item: T) => string;
  onMove: (next: T[]) => void;
  extra?: (item: T, index: number) => ReactNode;
  busy?: boolean;
  label: string;
}) {
  return (
    <ol className="order-list" aria-label={label}>
      {items.map((item, i) => (
        <li key={keyOf(item)}>
          <span className="muted">{i + 1}.</span>
          <span className="grow">{name(item)}</span>
          <button type="button" className="secondary" disabled={busy || i === 0} onClick={() => onMove(moved(items, i, -1))}>
            Up<span className="sr-only">: move {name(item)} up</span>
          </button>
          <button type="button" className="secondary" disabled={busy || i === items.length - 1} onClick={() => onMove(moved(items, i, 1))}>
            Down<span className="sr-only">: move {name(item)} down</span>
          </button>
          {extra?.(item, i)}
        </li>
      ))}
    </ol>
  );
}
