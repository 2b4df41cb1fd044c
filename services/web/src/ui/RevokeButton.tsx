import type { UseMutationResult } from '@tanstack/react-query';
import { useState } from 'react';
import { Confirm } from './Confirm.js';

// A list row's Revoke: `change` called with `args`. `what` names the row to screen readers
// ("Revoke invitation of …"). With `confirm`, the question comes first, as for the app's other
// endings (Confirm), and the API's refusal is said in it.

export function RevokeButton<A>({
  change,
  args,
  what,
  confirm,
}: {
  change: UseMutationResult<unknown, Error, A>;
  args: A;
  what: string;
  confirm?: { title: string; description: string; action: string };
}) {
  const [open, setOpen] = useState(false);
  const revoke = () => change.mutate(args, { onSuccess: () => setOpen(false) });
  const ask = () => {
    change.reset();
    setOpen(true);
  };
  return (
    <>
      <button type="button" className="secondary" disabled={change.isPending} onClick={confirm ? ask : revoke}>
        Revoke<span className="sr-only"> {what}</span>
      </button>
      {confirm && (
        <Confirm
          open={open}
          onClose={() => setOpen(false)}
          title={confirm.title}
          description={confirm.description}
          action={confirm.action}
          onConfirm={revoke}
          pending={change.isPending}
          error={change.error}
        />
      )}
    </>
  );
}
