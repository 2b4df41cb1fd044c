import { useState } from 'react';
import { useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { Field } from '../../ui/Field.js';
import { useLeavingChange } from './leaving-change.js';

// Deleting the account takes its owned workspaces with it; one that still holds projects or other
// people stands in the way, and is named with what is left in it. Typing the email confirms.

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export function DeleteSection() {
  const deletable = useOp('deletable');
  const me = useOp('whoami');
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useLeavingChange('deleteAccount');
  const email = me.data?.email ?? '';
  const matches = typed.trim().toLowerCase() === email.toLowerCase() && email !== '';

  return (
    <section className="panel danger-zone" aria-label="Delete the account">
      <div className="panel-head">
        <h2>Delete the account</h2>
      </div>
      <Async query={deletable} lines={2}>
        {(d) => (
          <>
            {d.allowed ? (
              <p>
                Your sign-ins, sessions, photo and the workspaces you own (with no one else in them) go for good. Rooms you visited
                elsewhere keep what you left there.
              </p>
            ) : (
              <>
                <p className="notice">
                  You cannot delete the account while you own workspaces that hold projects or other people. Delete their projects, or hand
                  them over, first:
                </p>
                <ul className="blockers" aria-label="What stands in the way">
                  {d.blockers.map((b) => (
                    <li key={b.workspaceId}>
                      <strong>{b.name}</strong> ({b.kind === 'personal' ? 'your personal workspace' : 'a team'}) still holds{' '}
                      {[
                        b.projects > 0 && count(b.projects, 'project', 'projects'),
                        b.people > 0 && count(b.people, 'other person', 'other people'),
                      ]
                        .filter(Boolean)
                        .join(' and ')}
                      .
                    </li>
                  ))}
                </ul>
              </>
            )}
            <button
              type="button"
              className="danger"
              onClick={() => {
                setTyped('');
                remove.reset();
                setOpen(true);
              }}
              disabled={!d.allowed}
            >
              Delete my account
            </button>
          </>
        )}
      </Async>
      <Confirm
        open={open}
        onClose={() => setOpen(false)}
        title="Delete your account for good?"
        description="This cannot be undone. Type your email to confirm."
        action="Delete account"
        onConfirm={() => remove.mutate({ body: { confirm: typed } })}
        pending={remove.isPending}
        error={remove.error}
        disabled={!matches}
      >
        <Field
          label={`Your email, ${email}`}
          name="confirm"
          type="email"
          autoComplete="off"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          error={remove.error}
        />
      </Confirm>
    </section>
  );
}
