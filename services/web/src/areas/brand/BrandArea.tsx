import { ComingSoon } from '../../ui/ComingSoon.js';

export default function BrandArea() {
  return <ComingSoon title="Brand and theme" />;
}
