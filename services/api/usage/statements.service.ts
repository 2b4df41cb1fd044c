import { UsageMonth } from '@demo-rooms/contract';
import { invalid, refused } from '../../core/rules/errors.js';
import { monthOf } from '../../data/container-usage.sql.js';
import type { MonthBounds } from '../../data/usage-statements.sql.js';

// Which month a statement request names (issue 46): a UTC month, YYYY-MM, not after the current
// one. A month that has not begun is refused 422 `future` rather than answered empty: an empty
// statement would read as a month that used nothing (docs/decisions/usage-and-billing.md).

export function statementMonth(month: string, now = new Date()): MonthBounds {
  if (!UsageMonth.safeParse(month).success) throw invalid([{ path: 'month', message: 'must be a UTC month, YYYY-MM' }]);
  const bounds = monthOf(new Date(`${month}-01T00:00:00Z`));
  if (bounds.start > now) throw refused(422, 'future', `${month} has not begun (UTC)`);
  return bounds;
}
