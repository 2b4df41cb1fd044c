import { useState } from 'react';
import { useChange, useOp } from '../api/hooks.js';
import { Field } from '../ui/Field.js';
import { Section } from '../ui/Page.js';
import { Refusal } from '../ui/Refusal.js';

// The light first step of a new builder (issue 29): nothing asked for a name, so viewers met
// "maya's workspace", the email's local part. Until a name is chosen the home page asks for one,
// once and skippably ("Not now" is kept in this browser); the account page can change it later.
// Saving names the person (the room's "sent by") and their personal workspace from it.

const LATER = 'pp-name-later';

export function NameStep() {
  const me = useOp('whoami');
  const [later, setLater] = useState(() => localStorage.getItem(LATER) === '1');
  const [name, setName] = useState('');
  const save = useChange('setName');
  if (!me.data || me.data.nameChosen !== false || later) return null;
  return (
    <Section title="What should viewers call you?">
      <p>
        Viewers see this name on the links you send them, and your workspace is named after it. Until you choose one they see “
        {me.data.workspace.name}”.
      </p>
      <form
        className="row"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          if (name.trim()) save.mutate({ body: { name: name.trim() } });
        }}
      >
        <div className="grow">
          <Field
            label="Your name"
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={80}
            autoComplete="name"
            placeholder="Maya Rao"
            error={save.error}
          />
        </div>
        <button type="submit" disabled={save.isPending || !name.trim()}>
          Save my name
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => {
            localStorage.setItem(LATER, '1');
            setLater(true);
          }}
        >
          Not now
        </button>
      </form>
      <Refusal error={save.error} />
    </Section>
  );
}
