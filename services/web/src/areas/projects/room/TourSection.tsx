import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';

// The live build's guided story, as the tour shows it, with what its rehearsal came to. Written
// in the manifest; read-only here.

const RESULT: Record<string, { words: string; badge: string }> = {
  passed: { words: 'passed', badge: 'ok' },
  failed: { words: 'failed', badge: 'bad' },
  'nothing-to-run': { words: 'nothing to run', badge: '' },
  'not-reported': { words: 'not reported', badge: 'warn' },
};

export function TourSection({ projectId }: { projectId: string }) {
  const tour = useOp('getTour', { params: { projectId } });
  return (
    <Section title="Guided story">
      <Async
        query={tour}
        lines={3}
        isEmpty={(t) => t.steps.length === 0}
        empty={
          <p>
            No story steps. Add a <code>story</code> to the manifest and deploy: viewers get a guided tour.
          </p>
        }
      >
        {(t) => (
          <>
            {!t.reported && (
              <p className="notice">
                This build was deployed without a rehearsal, so no step is known to pass. <code>pitch deploy</code> rehearses each step.
              </p>
            )}
            <ol>
              {t.steps.map((s) => (
                <li key={s.id}>
                  <strong>{s.title}</strong>{' '}
                  <span className="muted">
                    in {s.appName ?? s.app}
                    {s.path ? ` at ${s.path}` : ''}
                  </span>{' '}
                  <span className={`badge ${RESULT[s.result]?.badge ?? ''}`}>{RESULT[s.result]?.words ?? s.result}</span>
                  {s.calls.length > 0 && <div className="muted">Calls: {s.calls.join(', ')}</div>}
                </li>
              ))}
            </ol>
          </>
        )}
      </Async>
    </Section>
  );
}
