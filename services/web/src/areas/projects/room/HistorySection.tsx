import type { HistoryEntry } from '@demo-rooms/contract';
import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Time } from '../../../ui/Time.js';

// The room's append-only history, newest first: pauses, notes, copies and reissues of links.

const WHAT: Record<HistoryEntry['kind'], string> = {
  'room.pause': 'paused the room',
  'room.message': 'changed the pause note',
  'room.resume': 'resumed the room',
  'link.copy': 'revealed a link',
  'link.reissue': 'reissued a link',
  'room.busy': 'The room was busy',
};

export function HistorySection({ projectId }: { projectId: string }) {
  const history = useOp('projectHistory', { params: { projectId } });
  return (
    <Section title="History">
      <Async query={history} lines={4} empty={<p>Nothing yet: pauses, resumes and links revealed or reissued are written here.</p>}>
        {(entries) => (
          <ol className="timeline">
            {entries.slice(0, 50).map((e) => (
              <li key={e.id}>
                <div>
                  {e.kind === 'room.busy' ? (
                    WHAT[e.kind]
                  ) : (
                    <>
                      {e.by ?? 'Someone'} {WHAT[e.kind]}
                    </>
                  )}
                  {e.viewer && <> for {e.viewer}</>}
                  {e.message && (
                    <>
                      : <q>{e.message}</q>
                    </>
                  )}
                </div>
                <div className="muted">
                  <Time at={e.at} />
                  {e.until && (
                    <>
                      {' '}
                      · until <Time at={e.until} />
                    </>
                  )}
                </div>
              </li>
            ))}
          </ol>
        )}
      </Async>
    </Section>
  );
}
