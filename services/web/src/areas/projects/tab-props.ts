import type { ReplyOf } from '../../../../contract/route.js';
import type { Routes } from '../../../../contract/routes/route-table.js';

/** A project as getProject answers it; every tab of a project's page is given it. */
export type Project = ReplyOf<Routes['getProject']>;
export interface TabProps {
  project: Project;
}
