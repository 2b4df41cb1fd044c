import { DndContext, KeyboardSensor, PointerSensor, useSensor, useSensors, type DragEndEvent } from '@dnd-kit/core';
import { useState } from 'react';
import type { BoardCard, LinkStage } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Page } from '../../ui/Page.js';
import { ProjectSelect } from '../../ui/ProjectSelect.js';
import { Refusal } from '../../ui/Refusal.js';
import { BoardCardItem } from './BoardCard.js';
import { LinkPanel } from './LinkPanel.js';
import { Column } from './Column.js';
import { STAGES, stageName } from './stages.js';
import './pipeline.css';

// The pipeline: every link as a board card in the column of its stage. Dragging one (mouse, touch,
// or space/arrows/space) or its "Move to" select places it by hand; the move shows at once and
// the board is read again when the API has answered.

export default function PipelineArea() {
  const [projectId, setProjectId] = useState('');
  const workspace = useOp('board', undefined, { enabled: !projectId });
  const project = useOp('projectBoard', { params: { projectId } }, { enabled: !!projectId });
  const board = projectId ? project : workspace;
  const [moves, setMoves] = useState<Record<string, LinkStage>>({});
  const [openId, setOpenId] = useState<string | null>(null);
  const setStage = useChange('setStage');
  const sensors = useSensors(useSensor(PointerSensor, { activationConstraint: { distance: 5 } }), useSensor(KeyboardSensor));

  const move = (card: BoardCard, stage: LinkStage) => {
    if (card.stage === stage) return;
    setMoves((m) => ({ ...m, [card.id]: stage }));
    setStage.mutate(
      { params: { linkId: card.id }, body: { stage } },
      {
        onSettled: () =>
          setMoves((m) => {
            const { [card.id]: _, ...rest } = m;
            return rest;
          }),
      },
    );
  };
  const onDragEnd = (e: DragEndEvent) => {
    const card = board.data?.find((c) => c.id === e.active.id);
    if (card && e.over) move(card, e.over.id as LinkStage);
  };
  const open = board.data?.find((c) => c.id === openId) ?? null;

  return (
    <Page
      title="Pipeline"
      lead="Every link you sent, by how far its viewer got. Drag a card, or use its Move to list, to place it yourself."
    >
      <div className="row board-filter">
        <ProjectSelect id="board-project" value={projectId} onChange={setProjectId} />
        {board.data && (
          <span className="muted">
            {board.data.length} {board.data.length === 1 ? 'link' : 'links'}
          </span>
        )}
      </div>
      <Refusal error={setStage.error} />
      <Async
        query={board}
        lines={8}
        empty={
          <p>No links yet. Open a project, make a link for someone in its Links tab, and it shows here as they open and use the room.</p>
        }
      >
        {(cards) => (
          <DndContext sensors={sensors} onDragEnd={onDragEnd} accessibility={{ announcements: announce(cards) }}>
            <div className="board">
              {STAGES.map(({ stage, name }) => {
                const here = cards.filter((c) => (moves[c.id] ?? c.stage) === stage);
                return (
                  <Column key={stage} stage={stage} name={name} count={here.length}>
                    {here.map((c) => (
                      <BoardCardItem
                        key={c.id}
                        card={c}
                        stage={moves[c.id] ?? c.stage}
                        onMove={(s) => move(c, s)}
                        onOpen={() => setOpenId(c.id)}
                      />
                    ))}
                  </Column>
                );
              })}
            </div>
          </DndContext>
        )}
      </Async>
      {open && <LinkPanel card={open} onClose={() => setOpenId(null)} />}
    </Page>
  );
}

function announce(cards: BoardCard[]) {
  const name = (id: string | number) => cards.find((c) => c.id === id)?.viewerName ?? 'the card';
  const col = (id: string | number | undefined) => (id ? stageName(id as LinkStage) : 'no column');
  return {
    onDragStart: ({ active }: { active: { id: string | number } }) => `Picked up ${name(active.id)}.`,
    onDragOver: ({ active, over }: { active: { id: string | number }; over: { id: string | number } | null }) =>
      `${name(active.id)} is over ${col(over?.id)}.`,
    onDragEnd: ({ active, over }: { active: { id: string | number }; over: { id: string | number } | null }) =>
      `${name(active.id)} moved to ${col(over?.id)}.`,
    onDragCancel: ({ active }: { active: { id: string | number } }) => `Moving ${name(active.id)} was cancelled.`,
  };
}
