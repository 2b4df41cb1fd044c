import { ComingSoon } from '../../ui/ComingSoon.js';

export default function AnalyticsArea() {
  return <ComingSoon title="Analytics" />;
}
