import type { TabProps } from '../tab-props.js';

export function CardTab(_props: TabProps) {
  return <div className="empty"><p>Community card: coming soon.</p></div>;
}
