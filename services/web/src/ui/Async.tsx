import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Refusal } from './Refusal.js';

// One read's three states. The skeleton takes the height the content will about take, so the page
// does not jump when the data comes; an empty answer says what to do first.

export function Async<T>({
  query,
  children,
  empty,
  lines = 3,
  isEmpty,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
  empty?: ReactNode;
  lines?: number;
  isEmpty?: (data: T) => boolean;
}) {
  if (query.isPending) return <Skeleton lines={lines} />;
  if (query.isError && query.data === undefined) return <Refusal error={query.error} />;
  const data = query.data as T;
  const nothing = isEmpty ? isEmpty(data) : Array.isArray(data) && data.length === 0;
  if (nothing && empty) return <div className="empty">{empty}</div>;
  return <>{children(data)}</>;
}

export function Skeleton({ lines = 3 }: { lines?: number }) {
  return (
    <div className="skeleton" role="progressbar" aria-busy="true" aria-label="Loading">
      {Array.from({ length: lines }, (_, i) => (
        <div key={i} className="skeleton-line" />
      ))}
    </div>
  );
}

/**
 * A page of several sections, each with its own read: one skeleton until every read has answered
 * once, then all sections at once, so none pushes the ones below it as it arrives.
 */
export function AllLoaded({ queries, lines = 10, children }: { queries: UseQueryResult<unknown>[]; lines?: number; children: ReactNode }) {
  if (queries.some((q) => q.isPending)) return <Skeleton lines={lines} />;
  return <>{children}</>;
}
