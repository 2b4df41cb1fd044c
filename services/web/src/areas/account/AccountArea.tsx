import { ComingSoon } from '../../ui/ComingSoon.js';

export default function AccountArea() {
  return <ComingSoon title="Account" />;
}
