import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useLocation } from 'wouter';
import { useChange } from '../../api/hooks.js';
import { Confirm } from '../../ui/Confirm.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';

type Workspace = { id: string; name: string; role: 'owner' | 'member' };

/** Leaving and deleting, each confirmed; deleting asks for the team's name typed. */
export function TeamDanger({ workspace }: { workspace: Workspace }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const gone = () => {
    queries.clear();
    navigate('/team');
  };
  const [leaving, setLeaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [typed, setTyped] = useState('');
  const params = { workspaceId: workspace.id };
  const leave = useChange('leaveTeam', gone);
  const remove = useChange('deleteTeam', gone);
  return (
    <Section title="Leave or delete">
      <p className="muted">
        Leaving keeps your own workspace. A team can be deleted only with no live project and its plan cancelled; its members keep their own
        workspaces.
      </p>
      <div className="row">
        <button type="button" className="secondary" onClick={() => setLeaving(true)}>
          Leave team
        </button>
        {workspace.role === 'owner' && (
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete team
          </button>
        )}
      </div>
      <Confirm
        open={leaving}
        onClose={() => setLeaving(false)}
        title={`Leave ${workspace.name}?`}
        description="You lose access to its projects from your next request; an owner can invite you again."
        action="Leave"
        onConfirm={() => leave.mutate({ params })}
        pending={leave.isPending}
        error={leave.error}
      />
      <Confirm
        open={deleting}
        onClose={() => setDeleting(false)}
        title={`Delete ${workspace.name}?`}
        description="This cannot be undone. Type the team's name to confirm."
        action="Delete team for good"
        onConfirm={() => remove.mutate({ params, body: { confirm: typed } })}
        pending={remove.isPending}
        error={remove.error}
        disabled={typed !== workspace.name}
      >
        <Field
          label={
            <>
              Type <strong>{workspace.name}</strong>
            </>
          }
          name="confirm"
          value={typed}
          autoComplete="off"
          onChange={(e) => setTyped(e.target.value)}
          error={remove.error}
        />
      </Confirm>
    </Section>
  );
}
