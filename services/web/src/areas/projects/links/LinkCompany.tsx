import { useState } from 'react';
import type { LinkRec } from '@demo-rooms/contract';
import { useChange } from '../../../api/hooks.js';
import { Field } from '../../../ui/Field.js';

// The company a link names its viewer at (issue 34, personalised copies): shown under the name,
// and changed in place; an empty field clears it.

export function LinkCompany({ link, usable }: { link: LinkRec; usable: boolean }) {
  const [editing, setEditing] = useState(false);
  const [company, setCompany] = useState(link.viewerCompany ?? '');
  const update = useChange('updateLink', () => setEditing(false));
  if (!editing)
    return (
      <div className="muted link-company">
        {link.viewerCompany}
        {usable && (
          <button
            type="button"
            className="link"
            onClick={() => {
              setCompany(link.viewerCompany ?? '');
              update.reset();
              setEditing(true);
            }}
          >
            {link.viewerCompany ? ' Edit' : 'Add company'}
            <span className="sr-only"> for {link.viewerName}</span>
          </button>
        )}
      </div>
    );
  return (
    <form
      className="row"
      onSubmit={(e) => {
        e.preventDefault();
        update.mutate({ params: { linkId: link.id }, body: { viewerCompany: company.trim() || null } });
      }}
    >
      <Field
        label={`Company of ${link.viewerName}`}
        name="viewerCompany"
        value={company}
        onChange={(e) => setCompany(e.target.value)}
        maxLength={80}
        error={update.error}
      />
      <button type="submit" disabled={update.isPending}>
        Save
      </button>
      <button type="button" className="secondary" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}
