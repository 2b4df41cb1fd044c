import { useState } from 'react';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Page, Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Invitations } from './Invitations.js';
import { Members } from './Members.js';
import { TeamDanger } from './TeamDanger.js';
import './team.css';

// The active workspace as a team: its name, people, invitations and seats. The switch between
// workspaces is the shell's; a personal workspace is told what a team is and offered one.

export default function TeamArea() {
  const workspaces = useOp('listWorkspaces');
  return (
    <Async query={workspaces} lines={8}>
      {(list) => {
        const active = list.find((w) => w.active) ?? list[0];
        const teams = list.filter((w) => w.kind === 'team');
        return (
          <Page
            title="Team"
            lead={
              active.kind === 'team' ? (
                <>
                  You are {active.role === 'owner' ? 'an owner' : 'a member'} of <strong>{active.name}</strong>.
                </>
              ) : (
                'Your own workspace is active.'
              )
            }
          >
            {active.kind === 'team' ? <TeamPage workspace={active} /> : <PersonalIntro teams={teams.length} />}
            <CreateTeam />
          </Page>
        );
      }}
    </Async>
  );
}

type Workspace = { id: string; name: string; role: 'owner' | 'member' };

function PersonalIntro({ teams }: { teams: number }) {
  return (
    <div className="empty team-intro">
      <p>
        A team is a shared workspace: its projects, brand and plan belong to the team, and every member works on them with their own
        sign-in.
      </p>
      <p>
        {teams > 0
          ? `You belong to ${teams} team${teams === 1 ? '' : 's'}: pick one in the workspace menu at the top to manage it.`
          : 'Create a team below, then invite people by email.'}
      </p>
    </div>
  );
}

function TeamPage({ workspace }: { workspace: Workspace }) {
  const owner = workspace.role === 'owner';
  return (
    <>
      <Seats />
      {owner && <Rename workspace={workspace} />}
      <Members workspace={workspace} />
      {owner ? <Invitations workspace={workspace} /> : <p className="muted">Only the team's owners invite people and change roles.</p>}
      <TeamDanger workspace={workspace} />
    </>
  );
}

function Seats() {
  const billing = useOp('getBilling');
  const seats = billing.data?.seats as { used?: number; allowed?: number } | undefined;
  if (!billing.data) return null;
  return (
    <p className="seats">
      <span className="badge">{billing.data.plan} plan</span>{' '}
      {seats && typeof seats.used === 'number' && (
        <span>
          <strong>{seats.used}</strong> of <strong>{seats.allowed ?? '—'}</strong> seats used (invitations waiting hold a seat).
        </span>
      )}
    </p>
  );
}

function Rename({ workspace }: { workspace: Workspace }) {
  const [name, setName] = useState(workspace.name);
  const rename = useChange('renameWorkspace');
  return (
    <Section title="Name">
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          rename.mutate({ params: { workspaceId: workspace.id }, body: { name } });
        }}
      >
        <Field
          label="Team name"
          name="name"
          value={name}
          maxLength={80}
          required
          onChange={(e) => setName(e.target.value)}
          error={rename.error}
        />
        <button type="submit" disabled={rename.isPending || name === workspace.name}>
          Rename
        </button>
      </form>
      <Refusal error={rename.error} />
    </Section>
  );
}

function CreateTeam() {
  const [name, setName] = useState('');
  const create = useChange('createTeam', () => setName(''));
  return (
    <Section title="Create a team">
      <p className="muted">
        You become its owner and the team becomes your active workspace. A new team has no plan until one is set for it.
      </p>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ body: { name } });
        }}
      >
        <Field
          label="New team's name"
          name="name"
          value={name}
          maxLength={80}
          required
          onChange={(e) => setName(e.target.value)}
          error={create.error}
        />
        <button type="submit" disabled={create.isPending || !name.trim()}>
          Create team
        </button>
      </form>
      <Refusal error={create.error} />
    </Section>
  );
}
