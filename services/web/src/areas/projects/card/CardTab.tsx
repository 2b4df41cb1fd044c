import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import type { TabProps } from '../tab-props.js';
import { CardCover } from './CardCover.js';
import { CardListing } from './CardListing.js';
import { CardWording } from './CardWording.js';
import './card.css';

// A project's community card (spec 2.9, 4.5): its words, its cover, and its listing, with every
// check's finding shown as the API words it.

export function CardTab({ project }: TabProps) {
  const card = useOp('getCard', { params: { projectId: project.id } });
  return (
    <Async query={card} lines={10}>
      {(c) => (
        <div className="card-tab">
          <CardListing card={c} projectId={project.id} />
          <CardWording card={c} projectId={project.id} />
          <CardCover card={c} projectId={project.id} />
        </div>
      )}
    </Async>
  );
}
