import type { TabProps } from '../tab-props.js';

export function RoomTab(_props: TabProps) {
  return <div className="empty"><p>Room: coming soon.</p></div>;
}
