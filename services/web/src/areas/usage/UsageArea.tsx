import { ComingSoon } from '../../ui/ComingSoon.js';

export default function UsageArea() {
  return <ComingSoon title="Container usage" />;
}
