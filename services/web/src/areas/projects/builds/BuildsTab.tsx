import type { TabProps } from '../tab-props.js';

export function BuildsTab(_props: TabProps) {
  return <div className="empty"><p>Builds: coming soon.</p></div>;
}
