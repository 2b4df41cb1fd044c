import type { TabProps } from '../tab-props.js';

export function LinksTab(_props: TabProps) {
  return <div className="empty"><p>Links: coming soon.</p></div>;
}
