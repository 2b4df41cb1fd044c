import type { ComponentType } from 'react';
import { Link, useParams } from 'wouter';
import { useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Page } from '../../ui/Page.js';
import { ActivityTab } from './activity/ActivityTab.js';
import { BuildsTab } from './builds/BuildsTab.js';
import { CardTab } from './card/CardTab.js';
import { LinksTab } from './links/LinksTab.js';
import { ProjectActions } from './ProjectActions.js';
import { RoomTab } from './room/RoomTab.js';
import type { TabProps } from './tab-props.js';

// One project: its tabs, each an address of its own (/projects/<id>/links…) so a tab can be
// linked to and the back button works. Each tab gets the project as the API answered it. The
// public address /p/<slug> opens only while the project is listed (and its listed build live):
// the header links it then, and otherwise says how viewers come in instead of linking a 404.

const TABS: { path: string; label: string; Tab: ComponentType<TabProps> }[] = [
  { path: '', label: 'Builds', Tab: BuildsTab },
  { path: 'links', label: 'Links', Tab: LinksTab },
  { path: 'room', label: 'Room', Tab: RoomTab },
  { path: 'activity', label: 'Activity', Tab: ActivityTab },
  { path: 'card', label: 'Community card', Tab: CardTab },
];

export function ProjectPage() {
  const { projectId, tab = '' } = useParams<{ projectId: string; tab?: string }>();
  const project = useOp('getProject', { params: { projectId } });
  const card = useOp('getCard', { params: { projectId } });
  const publicPage = card.data && card.data.status === 'listed' && !card.data.hidden ? card.data.publicUrl : null;
  const current = TABS.find((t) => t.path === tab) ?? TABS[0];
  return (
    <Async query={project} lines={8}>
      {(p) => (
        <Page
          title={p.name}
          lead={
            <>
              <span className="badge">{p.slug}</span>{' '}
              {publicPage ? (
                <a className="room-url" href={publicPage} target="_blank" rel="noreferrer">
                  {publicPage}
                </a>
              ) : (
                <span className="muted room-url">Not public: viewers come in by the links you make.</span>
              )}
            </>
          }
          actions={<ProjectActions project={p} />}
        >
          <nav className="tabs project-tabs" aria-label="Project">
            {TABS.map((t) => (
              <Link key={t.path} href={`/${projectId}${t.path ? `/${t.path}` : ''}`} aria-current={t === current ? 'page' : undefined}>
                {t.label}
              </Link>
            ))}
          </nav>
          <current.Tab project={p} />
        </Page>
      )}
    </Async>
  );
}
