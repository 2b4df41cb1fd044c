import * as RadixDialog from '@radix-ui/react-dialog';
import type { ReactNode } from 'react';

// Dialogs from Radix's primitives: focus kept inside while open and given back on close, Escape
// closes, the title names the dialog for screen readers.

export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: string;
  children: ReactNode;
}) {
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="dialog-overlay" />
        <RadixDialog.Content className="dialog" aria-describedby={description ? undefined : undefined}>
          <RadixDialog.Title>{title}</RadixDialog.Title>
          {description ? (
            <RadixDialog.Description>{description}</RadixDialog.Description>
          ) : (
            <RadixDialog.Description className="sr-only">{title}</RadixDialog.Description>
          )}
          {children}
          <RadixDialog.Close className="dialog-close" aria-label="Close">
            ×
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
