import type { Brand, Logo, ThemeState } from '@demo-rooms/contract';
import { firstPlanWith } from '../../core/rules/plans.js';
import type { ContrastProblem } from '../../core/rules/room-theme.js';
import type { WorkspaceLook } from '../../data/brand-look.js';
import type { BrandRow } from '../../data/brand.sql.js';

// The replies of spec 2.8: Brand and ThemeState, from what the room draws (brand-look.ts).

const logoView = (brand: BrandRow): Logo | null =>
  brand.logo && {
    url: `/api/workspaces/${brand.workspaceId}/logo`,
    type: brand.logo.type,
    width: brand.logo.width,
    height: brand.logo.height,
    bytes: brand.logo.bytes,
    etag: `"${brand.logo.hash}"`,
    updatedAt: brand.logo.at.toISOString(),
  };

/** The pairs the stored accent fails where the room draws it (none when the theme has an accent of its own). */
const accentProblems = (look: WorkspaceLook): ContrastProblem[] =>
  look.brand.theme?.accent ? [] : look.drawn.problems.filter((p) => p.foreground === 'accent' || p.background === 'accent');

export function brandView(look: WorkspaceLook): Brand {
  const { brand } = look;
  const problems = accentProblems(look);
  return {
    name: brand.name,
    accent: brand.accent,
    logo: logoView(brand),
    workspaceName: brand.workspaceName,
    planAllows: look.planAllows,
    ...(problems.length ? { problems } : {}),
  };
}

export function themeStateView(look: WorkspaceLook): ThemeState {
  return {
    theme: look.brand.theme,
    planAllows: look.planAllows,
    shownOn: firstPlanWith('ownBranding'),
    effective: look.drawn.effective,
    problems: look.drawn.problems,
    fellBack: look.drawn.fellBack,
  };
}
