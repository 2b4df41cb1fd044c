import { useId, useState } from 'react';
import { LINK_DEFAULT_DAYS } from '@demo-rooms/contract';
import { useChange } from '../../../api/hooks.js';
import { Field } from '../../../ui/Field.js';
import { Section } from '../../../ui/Page.js';
import { Paywall, PlanPending, useAllowance } from '../../../ui/Paywall.js';
import { Refusal } from '../../../ui/Refusal.js';
import { AddressBox } from './AddressBox.js';

/** Makes a link for one named viewer; its address is shown once here, to copy and send. */
export function NewLink({ projectId }: { projectId: string }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [company, setCompany] = useState('');
  const [days, setDays] = useState(String(LINK_DEFAULT_DAYS));
  const [never, setNever] = useState(false);
  const neverId = useId();
  const [made, setMade] = useState<{ name: string; url: string } | null>(null);
  const create = useChange('createLink', (reply) => {
    setMade({ name: reply.link.viewerName, url: reply.url });
    setName('');
    setEmail('');
    setCompany('');
  });
  // A plan of no private links (Free) is told so in place of the form, not refused after it (issue 47).
  const linksAllowed = useAllowance('linksPerProject');
  if (linksAllowed === 0)
    return (
      <Section title="New link">
        <Paywall upgrade="solo">Links for named viewers: on your plan a room has its public address only.</Paywall>
      </Section>
    );
  const form = (
    <form
      className="row create-project"
      onSubmit={(e) => {
        e.preventDefault();
        // Never expiring only when ticked; an empty field is the platform's default, as in the CLI.
        const expires = Number(days);
        create.mutate({
          params: { projectId },
          body: {
            viewerName: name.trim(),
            ...(email.trim() ? { viewerEmail: email.trim() } : {}),
            ...(company.trim() ? { viewerCompany: company.trim() } : {}),
            ...(never ? { expiresInDays: null } : days && expires > 0 ? { expiresInDays: expires } : {}),
          },
        });
      }}
    >
      <Field
        label="Viewer's name"
        name="viewerName"
        value={name}
        onChange={(e) => setName(e.target.value)}
        required
        maxLength={80}
        error={create.error}
      />
      <Field
        label="Viewer's email (optional)"
        name="viewerEmail"
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={create.error}
        hint="Nothing is sent to it."
      />
      <Field
        label="Viewer's company (optional)"
        name="viewerCompany"
        value={company}
        onChange={(e) => setCompany(e.target.value)}
        maxLength={80}
        error={create.error}
        hint="Told to a demo that personalises its copies."
      />
      <Field
        label="Expires after (days)"
        name="expiresInDays"
        type="number"
        min={1}
        max={365}
        value={days}
        onChange={(e) => setDays(e.target.value)}
        error={create.error}
        disabled={never}
        hint={`Empty: ${LINK_DEFAULT_DAYS} days.`}
      />
      <div className="field row">
        <input id={neverId} type="checkbox" checked={never} onChange={(e) => setNever(e.target.checked)} />
        <label htmlFor={neverId}>Never expires</label>
      </div>
      <button type="submit" disabled={create.isPending || !name.trim()}>
        {create.isPending ? 'Making…' : 'Make link'}
      </button>
    </form>
  );
  return (
    <Section title="New link">
      {linksAllowed === null ? <PlanPending>{form}</PlanPending> : form}
      <Refusal error={create.error} />
      {made && (
        <div className="notice" role="status">
          <p>Link for {made.name} made. Copy it now and send it yourself; you can reveal it again later.</p>
          <AddressBox url={made.url} label={`Address for ${made.name}`} />
        </div>
      )}
    </Section>
  );
}
