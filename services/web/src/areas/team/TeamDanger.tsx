import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { useChange } from '../../api/hooks.js';
import { Dialog } from '../../ui/Dialog.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';

type Workspace = { id: string; name: string; role: 'owner' | 'member' };

/** Leaving and deleting, each confirmed; deleting asks for the team's name typed. */
export function TeamDanger({ workspace }: { workspace: Workspace }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const gone = () => { queries.clear(); navigate('/team'); };
  const [leaving, setLeaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [typed, setTyped] = useState('');
  const params = { workspaceId: workspace.id };
  const leave = useChange('leaveTeam', gone);
  const remove = useChange('deleteTeam', gone);
  return (
    <Section title="Leave or delete">
      <p className="muted">Leaving keeps your own workspace. A team can be deleted only with no live project and its plan cancelled; its members keep their own workspaces.</p>
      <div className="row">
        <button type="button" className="secondary" onClick={() => setLeaving(true)}>Leave team</button>
        {workspace.role === 'owner' && <button type="button" className="danger" onClick={() => setDeleting(true)}>Delete team</button>}
      </div>
      <Dialog open={leaving} onOpenChange={setLeaving} title={`Leave ${workspace.name}?`} description="You lose access to its projects from your next request; an owner can invite you again.">
        <Refusal error={leave.error} />
        <div className="row">
          <button type="button" className="danger" disabled={leave.isPending} onClick={() => leave.mutate({ params })}>Leave</button>
          <button type="button" className="secondary" onClick={() => setLeaving(false)}>Cancel</button>
        </div>
      </Dialog>
      <Dialog open={deleting} onOpenChange={setDeleting} title={`Delete ${workspace.name}?`} description="This cannot be undone. Type the team's name to confirm.">
        <form onSubmit={(e) => { e.preventDefault(); remove.mutate({ params, body: { confirm: typed } }); }}>
          <Field label={<>Type <strong>{workspace.name}</strong></>} name="confirm" value={typed} autoComplete="off" onChange={(e) => setTyped(e.target.value)} error={remove.error} />
          <Refusal error={remove.error} />
          <div className="row">
            <button type="submit" className="danger" disabled={remove.isPending || typed !== workspace.name}>Delete team for good</button>
            <button type="button" className="secondary" onClick={() => setDeleting(false)}>Cancel</button>
          </div>
        </form>
      </Dialog>
    </Section>
  );
}
