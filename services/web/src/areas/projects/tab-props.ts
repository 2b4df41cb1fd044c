import type { ReplyOf, Routes } from '@demo-rooms/contract';

/** A project as getProject answers it; every tab of a project's page is given it. */
export type Project = ReplyOf<Routes['getProject']>;
export interface TabProps {
  project: Project;
}
