import { useState } from 'react';
import { fieldProblem } from '../../api/refusal-words.js';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';

export function ProfileForm() {
  const profile = useOp('getProfile');
  return (
    <Section title="Public profile">
      <Async query={profile} lines={4}>
        {(p) => <Form handle={p.handle ?? ''} bio={p.bio ?? ''} />}
      </Async>
    </Section>
  );
}

function Form(initial: { handle: string; bio: string }) {
  const [handle, setHandle] = useState(initial.handle);
  const [bio, setBio] = useState(initial.bio);
  const save = useChange('setProfile');
  const bioProblem = fieldProblem(save.error, 'bio');
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ body: { handle: handle.trim(), bio: bio.trim() || null } });
      }}
    >
      <p className="muted">
        Listings name no builder unless you credit one to your handle. Your profile shows only the handle, the bio and the listings credited
        to you.
      </p>
      <Field
        label="Handle"
        name="handle"
        value={handle}
        minLength={3}
        maxLength={40}
        required
        autoComplete="off"
        hint="Lower-case letters, digits and dashes; unique among people."
        onChange={(e) => setHandle(e.target.value)}
        error={save.error}
      />
      <div className="field">
        <label htmlFor="profile-bio">Bio</label>
        <textarea
          id="profile-bio"
          value={bio}
          maxLength={500}
          aria-invalid={bioProblem ? true : undefined}
          onChange={(e) => setBio(e.target.value)}
        />
        <p className="hint">{bio.length} of 500 characters.</p>
        {bioProblem && <p className="problem">{bioProblem}</p>}
      </div>
      <div className="row">
        <button type="submit" disabled={save.isPending || handle.trim().length < 3}>
          Save profile
        </button>
        {save.isSuccess && (
          <span className="ok" role="status">
            Saved.
          </span>
        )}
      </div>
      <Refusal error={save.error} />
    </form>
  );
}
