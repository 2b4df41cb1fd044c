import { useState } from 'react';
import { type BuildHistory, sizeText } from '@demo-rooms/contract';
import { useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Confirm } from '../../../ui/Confirm.js';
import { Section } from '../../../ui/Page.js';
import { Time } from '../../../ui/Time.js';
import { DeployCommand } from '../DeployCommand.js';
import type { TabProps } from '../tab-props.js';
import { ManifestCheck } from './ManifestCheck.js';

// The project's builds, newest first, with who deployed each and when it was made live. A build
// is made whole by createBuild (there is no queued or building state to wait on), so the list is
// read again on a timer only while nothing is live yet: the first deploy shows up by itself.

type Person = { displayName?: string; userId?: string } | null;
type Release = { at: string; by: Person; rollback: boolean };

const who = (p: unknown) => (p && typeof p === 'object' && 'displayName' in p ? String((p as { displayName: unknown }).displayName) : null);

export function BuildsTab({ project }: TabProps) {
  const history = useOp('buildHistory', { params: { projectId: project.id } }, { refetchInterval: project.liveBuildId ? false : 5000 });
  const [chosen, setChosen] = useState<BuildHistory | null>(null);
  const live = history.data?.find((b) => b.live);
  return (
    <>
      <Section title={`Builds${history.data ? ` (${history.data.length})` : ''}`}>
        <Async
          query={history}
          lines={5}
          empty={
            <>
              <p>
                <strong>No build yet.</strong> Deploy from your demo's folder; the build shows here and goes live.
              </p>
              <p>
                <DeployCommand slug={project.slug} />
              </p>
            </>
          }
        >
          {(builds) => (
            <div className="table-wrap">
              <table className="stack">
                <thead>
                  <tr>
                    <th>Build</th>
                    <th>State</th>
                    <th>Kind</th>
                    <th>Deployed</th>
                    <th>By</th>
                    <th>Made live</th>
                    <th>
                      <span className="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {builds.map((b) => (
                    <BuildRow key={b.id} build={b} live={live} choose={() => setChosen(b)} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </Async>
        {chosen && <MakeLive projectId={project.id} build={chosen} live={live} onClose={() => setChosen(null)} />}
      </Section>
      <ManifestCheck />
    </>
  );
}

/** One build: its name and size, state and problems, kind, who deployed it, when it went live, and its way to go live. */
function BuildRow({ build: b, live, choose }: { build: BuildHistory; live: BuildHistory | undefined; choose: () => void }) {
  const releases = b.releases as Release[];
  const last = releases[0];
  return (
    <tr>
      <td data-label="Build">
        <code>{b.id.slice(0, 8)}</code>
        {b.note && <div className="muted">{b.note}</div>}
        <div className="muted">
          {b.manifest.name} · {sizeText(b.sizeBytes)}
        </div>
      </td>
      <td data-label="State">
        {b.state === 'live' ? <span className="badge live">Live</span> : <span className="badge">Ready</span>}
        {b.problems.length > 0 && (
          <ul className="muted" aria-label="To look at">
            {b.problems.map((p) => (
              <li key={p.code + p.message}>{p.message}</li>
            ))}
          </ul>
        )}
      </td>
      <td data-label="Kind">{b.kind}</td>
      <td data-label="Deployed">
        <Time at={b.createdAt} />
      </td>
      <td data-label="By">{who(b.deployedBy) ?? <span className="muted">—</span>}</td>
      <td data-label="Made live">
        {last ? (
          <>
            <Time at={last.at} />
            {last.rollback && (
              <>
                {' '}
                <span className="badge warn">Rollback</span>
              </>
            )}
            {releases.length > 1 && <span className="muted"> · {releases.length} times</span>}
          </>
        ) : (
          <span className="muted">never</span>
        )}
      </td>
      <td>
        {!b.live && (
          <button type="button" className="secondary" onClick={choose}>
            {isRollback(b, live) ? 'Roll back to this build' : 'Make live'}
            <span className="sr-only"> build {b.id.slice(0, 8)}</span>
          </button>
        )}
      </td>
    </tr>
  );
}

/** As the API records it: a rollback only to a build older than the live one (issue 29). */
const isRollback = (build: BuildHistory, live: BuildHistory | undefined) => live !== undefined && build.createdAt < live.createdAt;

function MakeLive({
  projectId,
  build,
  live,
  onClose,
}: {
  projectId: string;
  build: BuildHistory;
  live?: BuildHistory;
  onClose: () => void;
}) {
  const makeLive = useChange('makeLive', onClose);
  const rollback = isRollback(build, live);
  const liveId = live?.id;
  return (
    <Confirm
      open
      onClose={onClose}
      title={rollback ? 'Roll back to this build?' : 'Make this build live?'}
      description={`Viewers meet build ${build.id.slice(0, 8)} from their next visit${liveId ? `, instead of ${liveId.slice(0, 8)}` : ''}. Links keep working.`}
      danger={false}
      action={rollback ? 'Roll back' : 'Make live'}
      onConfirm={() => makeLive.mutate({ params: { projectId, buildId: build.id } })}
      pending={makeLive.isPending}
      error={makeLive.error}
    />
  );
}
