import type { TabProps } from '../tab-props.js';

export function ActivityTab(_props: TabProps) {
  return <div className="empty"><p>Activity: coming soon.</p></div>;
}
