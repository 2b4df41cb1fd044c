import { ComingSoon } from '../../ui/ComingSoon.js';

export function ProjectList() {
  return <ComingSoon title="Projects" />;
}
