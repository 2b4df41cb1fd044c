import { useDroppable } from '@dnd-kit/core';
import type { ReactNode } from 'react';
import type { LinkStage } from '@demo-rooms/contract';

export function Column({ stage, name, count, children }: { stage: LinkStage; name: string; count: number; children: ReactNode }) {
  const { setNodeRef, isOver } = useDroppable({ id: stage });
  return (
    <section ref={setNodeRef} className={`column${isOver ? ' over' : ''}`} aria-label={name}>
      <h2>
        {name} <span className="badge">{count}</span>
      </h2>
      <div className="column-cards">{children}</div>
      {count === 0 && <p className="muted column-empty">Drop a card here</p>}
    </section>
  );
}
