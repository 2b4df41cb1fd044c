import { ComingSoon } from '../../ui/ComingSoon.js';

export default function PipelineArea() {
  return <ComingSoon title="Pipeline" />;
}
