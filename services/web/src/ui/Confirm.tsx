import type { ReactNode } from 'react';
import { Dialog } from './Dialog.js';
import { Refusal } from './Refusal.js';

// The question before a change: what it does, anything to type first (`children`), the API's
// refusal if it says no, the change and a way back. Every area's confirmations are this one.

export function Confirm({
  open,
  onClose,
  title,
  description,
  action,
  onConfirm,
  pending,
  error,
  danger = true,
  disabled,
  cancel = 'Cancel',
  children,
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  description?: string;
  /** The words on the button that makes the change. */
  action: string;
  onConfirm: () => void;
  pending: boolean;
  error: unknown;
  danger?: boolean;
  disabled?: boolean;
  cancel?: string;
  children?: ReactNode;
}) {
  return (
    <Dialog open={open} onOpenChange={(o) => !o && onClose()} title={title} description={description}>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          onConfirm();
        }}
      >
        {children}
        <Refusal error={error} retry={onConfirm} />
        <div className="row">
          <button type="submit" className={danger ? 'danger' : undefined} disabled={pending || disabled}>
            {action}
          </button>
          <button type="button" className="secondary" onClick={onClose}>
            {cancel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
