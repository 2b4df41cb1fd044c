import { useState } from 'react';
import { addressOf } from '../../api/client.js';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';

type Workspace = { id: string; name: string; role: 'owner' | 'member' };
type Member = {
  userId: string;
  displayName: string;
  email: string;
  image: string | null;
  role: 'owner' | 'member';
  joinedAt: string;
  you: boolean;
};

/** The team's people; owners change roles and remove, members only read. */
export function Members({ workspace }: { workspace: Workspace }) {
  const members = useOp('listMembers', { params: { workspaceId: workspace.id } });
  const setRole = useChange('setMemberRole');
  const owner = workspace.role === 'owner';
  const count = members.data?.length;
  return (
    <Section title={count === undefined ? 'Members' : `Members (${count})`}>
      <Async query={members} lines={3}>
        {(list) => (
          <div className="table-wrap">
            <table className="stack">
              <thead>
                <tr>
                  <th>Person</th>
                  <th>Role</th>
                  <th>Joined</th>
                  {owner && (
                    <th>
                      <span className="sr-only">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {list.map((m) => (
                  <tr key={m.userId}>
                    <td data-label="Person">
                      <Person m={m} />
                    </td>
                    <td data-label="Role">
                      {owner && !m.you ? (
                        <>
                          <label className="sr-only" htmlFor={`role-${m.userId}`}>
                            Role of {m.displayName}
                          </label>
                          <select
                            id={`role-${m.userId}`}
                            value={m.role}
                            disabled={setRole.isPending}
                            onChange={(e) =>
                              setRole.mutate({
                                params: { workspaceId: workspace.id, userId: m.userId },
                                body: { role: e.target.value as 'owner' | 'member' },
                              })
                            }
                          >
                            <option value="owner">Owner</option>
                            <option value="member">Member</option>
                          </select>
                        </>
                      ) : (
                        <span className={`badge${m.role === 'owner' ? ' ok' : ''}`}>{m.role}</span>
                      )}
                    </td>
                    <td data-label="Joined">
                      <Time at={m.joinedAt} />
                    </td>
                    {owner && <td>{!m.you && <RemoveMember workspace={workspace} member={m} />}</td>}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Async>
      <Refusal error={setRole.error} />
    </Section>
  );
}

function Person({ m }: { m: Member }) {
  return (
    <div className="person">
      {m.image ? (
        <img src={addressOf('personPhoto', { userId: m.userId })} alt="" width={32} height={32} />
      ) : (
        <span className="initial" aria-hidden="true">
          {m.displayName.slice(0, 1).toUpperCase()}
        </span>
      )}
      <div>
        <strong>{m.displayName}</strong>
        {m.you && <span className="muted"> (you)</span>}
        <div className="muted">{m.email}</div>
      </div>
    </div>
  );
}

function RemoveMember({ workspace, member }: { workspace: Workspace; member: Member }) {
  const [open, setOpen] = useState(false);
  const remove = useChange('removeMember', () => setOpen(false));
  return (
    <>
      <button type="button" className="secondary" onClick={() => setOpen(true)}>
        Remove<span className="sr-only"> {member.displayName}</span>
      </button>
      <Confirm
        open={open}
        onClose={() => setOpen(false)}
        title={`Remove ${member.displayName}?`}
        description={`${member.displayName} loses access to ${workspace.name} from their next request. Their own workspace is kept.`}
        action="Remove from team"
        onConfirm={() => remove.mutate({ params: { workspaceId: workspace.id, userId: member.userId } })}
        pending={remove.isPending}
        error={remove.error}
      />
    </>
  );
}
