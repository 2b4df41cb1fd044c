import { useQueryClient } from '@tanstack/react-query';
import { useLocation } from 'wouter';
import { api } from '../api/client.js';
import { useAction, useOp } from '../api/hooks.js';
import { Refusal } from '../ui/Refusal.js';

/** Which workspace the pages show: the own one or a team. Switching starts from its projects. */
export function WorkspaceSwitch() {
  const workspaces = useOp('listWorkspaces');
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const activate = useAction(
    (workspaceId: string) => api.call('activateWorkspace', { params: { workspaceId } }),
    () => {
      queries.clear();
      navigate('/');
    },
  );
  const active = workspaces.data?.find((w) => w.active);
  return (
    <div className="workspace">
      <label htmlFor="workspace" className="sr-only">
        Workspace
      </label>
      <select
        id="workspace"
        value={active?.id ?? ''}
        disabled={!workspaces.data || activate.isPending}
        onChange={(e) => activate.mutate(e.target.value)}
      >
        {!workspaces.data && <option value="">Workspace…</option>}
        {workspaces.data?.map((w) => (
          <option key={w.id} value={w.id}>
            {w.kind === 'personal' ? `${w.name} (personal)` : `${w.name} · ${w.role}`}
          </option>
        ))}
      </select>
      <Refusal error={activate.error} />
    </div>
  );
}
