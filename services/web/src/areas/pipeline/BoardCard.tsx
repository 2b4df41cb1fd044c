import { useDraggable } from '@dnd-kit/core';
import { useId } from 'react';
import type { BoardCard, LinkStage } from '@demo-rooms/contract';
import { Time } from '../../ui/Time.js';
import { STAGES, stageName } from './stages.js';

/**
 * A link on the board, the spec's BoardCard: who, which project, when last seen, what the evidence
 * suggests. (The pipeline's "card" only ever means this; the community card is the project's listing.)
 */
export function BoardCardItem({
  card,
  stage,
  onMove,
  onOpen,
}: {
  card: BoardCard;
  stage: LinkStage;
  onMove: (s: LinkStage) => void;
  onOpen: () => void;
}) {
  const { attributes, listeners, setNodeRef, transform, isDragging } = useDraggable({ id: card.id });
  const selectId = useId();
  const style = transform ? { transform: `translate(${transform.x}px, ${transform.y}px)` } : undefined;
  return (
    <article
      ref={setNodeRef}
      style={style}
      className={`board-card${isDragging ? ' dragging' : ''}`}
      aria-label={`${card.viewerName}, ${card.projectName}`}
      data-link={card.id}
    >
      <div className="row board-card-head">
        <button type="button" className="drag-handle" aria-label={`Drag ${card.viewerName}`} {...attributes} {...listeners}>
          ⠿
        </button>
        <button type="button" className="link board-card-open" onClick={onOpen} title={card.viewerName}>
          {card.viewerName}
        </button>
      </div>
      <p className="muted project-name" title={card.projectName}>
        {card.projectName}
      </p>
      <p className="meta">
        Last seen <Time at={card.signals.lastSeenAt} />
      </p>
      <div className="row badges">
        {card.placed && card.suggested !== stage && <span className="badge">Evidence: {stageName(card.suggested)}</span>}
        {card.outcome && (
          <span className={`badge ${card.outcome === 'won' ? 'ok' : card.outcome === 'lost' ? 'bad' : 'warn'}`}>
            {card.outcome === 'won' ? 'Won' : card.outcome === 'lost' ? 'Lost' : 'Later'}
          </span>
        )}
        {card.forwardedCount > 0 && <span className="badge warn">Forwarded ({card.forwardedCount})</span>}
        {card.claims > 1 && <span className="badge warn">{card.claims} names</span>}
        {card.notes > 0 && (
          <span className="badge">
            {card.notes} {card.notes === 1 ? 'note' : 'notes'}
          </span>
        )}
        {card.followUp.on && <span className="badge">Follow up {card.followUp.on}</span>}
        {card.revokedAt && <span className="badge bad">Revoked</span>}
      </div>
      <div className="row move-to">
        <label htmlFor={selectId}>Move to</label>
        <select id={selectId} value={stage} onChange={(e) => onMove(e.target.value as LinkStage)}>
          {STAGES.map((s) => (
            <option key={s.stage} value={s.stage}>
              {s.name}
            </option>
          ))}
        </select>
      </div>
    </article>
  );
}
