import { useId } from 'react';
import { CopyButton } from '../../../ui/CopyButton.js';

/** A link's full address, read-only and selected on focus, with a button to copy it. */
export function AddressBox({ url, label = 'Link address' }: { url: string; label?: string }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        <input id={id} className="grow address-input" readOnly value={url} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton value={url} label="Copy address" />
      </div>
    </div>
  );
}
