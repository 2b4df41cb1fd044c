import { ComingSoon } from '../../ui/ComingSoon.js';

export default function CommunityArea() {
  return <ComingSoon title="Community" />;
}
