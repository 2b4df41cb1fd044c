import { ComingSoon } from '../../ui/ComingSoon.js';

export default function JourneyArea() {
  return <ComingSoon title="Journey" />;
}
