import { ComingSoon } from '../../ui/ComingSoon.js';

export default function TeamArea() {
  return <ComingSoon title="Team" />;
}
