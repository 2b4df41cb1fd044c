import type { TabProps } from '../tab-props.js';
import { AccessSection } from './AccessSection.js';
import { AppOrderSection } from './AppOrderSection.js';
import { ExitsSection } from './ExitsSection.js';
import { HistorySection } from './HistorySection.js';
import { NextStepsSection } from './NextStepsSection.js';
import { PagesSection } from './PagesSection.js';
import { PauseSection } from './PauseSection.js';
import { TourSection } from './TourSection.js';

// What a viewer meets in the room, in the order a builder checks it before sending a link:
// whether it is open (pause, preview), who gets in, what it shows, what it asks at the end.

export function RoomTab({ project }: TabProps) {
  return (
    <>
      <PauseSection projectId={project.id} />
      <AccessSection projectId={project.id} />
      <AppOrderSection projectId={project.id} />
      <PagesSection projectId={project.id} />
      <NextStepsSection projectId={project.id} />
      <TourSection projectId={project.id} />
      <HistorySection projectId={project.id} />
      <ExitsSection projectId={project.id} />
    </>
  );
}
