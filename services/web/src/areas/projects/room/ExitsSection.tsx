import { useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Time } from '../../../ui/Time.js';

/** The latest copies of a container demo that exited on their own, with their last output. */
export function ExitsSection({ projectId }: { projectId: string }) {
  const exits = useOp('listExits', { params: { projectId } });
  return (
    <Section title="Copies that exited">
      <Async query={exits} lines={2} empty={<p>No copy of the demo has exited on its own. (Static rooms have none.)</p>}>
        {(list) => (
          <ul className="timeline">
            {list.map((x) => (
              <li key={x.copyId + x.at}>
                <div>
                  <span className="badge bad">{x.when === 'crash' ? 'crashed' : 'failed to start'}</span>{' '}
                  {x.oom ? 'out of memory' : `exit code ${x.exitCode ?? 'unknown'}`} · build <code>{x.buildId.slice(0, 8)}</code> ·{' '}
                  <Time at={x.at} />
                </div>
                <details>
                  <summary>Last output</summary>
                  <pre className="wrap">{x.output}</pre>
                </details>
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Section>
  );
}
