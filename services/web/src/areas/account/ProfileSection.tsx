import { useId, useState, type FormEvent } from 'react';
import { addressOf, api } from '../../api/client.js';
import { fieldProblem, isStatus } from '../../api/refusal-words.js';
import { useAction, useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Refusal } from '../../ui/Refusal.js';
import { Section } from '../../ui/Page.js';
import type { Account } from '@demo-rooms/contract';

// The name other people see (in teams, on community cards), the photo beside it, and the email
// every sign-in link goes to (read-only: it is who the account is).

const accepted = 'image/png,image/jpeg,image/webp';

export function ProfileSection() {
  const me = useOp('whoami');
  return (
    <Section title="Profile">
      <Async query={me} lines={5}>
        {(account) => <Profile account={account} />}
      </Async>
    </Section>
  );
}

function Profile({ account }: { account: Account }) {
  // The photo's address does not change with its bytes: a new query after each change makes the
  // browser fetch the new one instead of showing the cached one.
  const [version, setVersion] = useState(() => Date.now());
  const upload = useAction(
    (file: File) => api.upload('uploadPhoto', file, file.type || 'application/octet-stream'),
    () => setVersion(Date.now()),
  );
  const remove = useChange('removePhoto', () => setVersion(Date.now()));
  const fileId = useId();

  const photo = account.photo
    ? `${addressOf('personPhoto', { userId: account.userId })}?v=${version}`
    : account.image?.startsWith('/')
      ? account.image
      : null;

  return (
    <div className="profile">
      <div>
        {photo ? (
          <img className="avatar" src={photo} alt={`Photo of ${account.displayName}`} width={96} height={96} />
        ) : (
          <div className="avatar" role="img" aria-label={`No photo yet: the initial of ${account.displayName}`}>
            {(account.displayName || account.email)[0]?.toUpperCase()}
          </div>
        )}
      </div>
      <div>
        <NameForm account={account} />

        <div className="photo-controls">
          <label htmlFor={fileId} className="label">
            Photo
          </label>
          <input
            id={fileId}
            type="file"
            accept={accepted}
            aria-describedby={`${fileId}-hint`}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) upload.mutate(file);
              event.currentTarget.value = '';
            }}
          />
          <p className="hint" id={`${fileId}-hint`}>
            PNG, JPEG or WebP, up to 2 MB and 4096 pixels a side.{upload.isPending ? ' Uploading…' : ''}
          </p>
          <Refusal error={upload.error} />
          {upload.isSuccess && !upload.error && (
            <p className="ok" role="status">
              Photo updated.
            </p>
          )}
          {account.photo && (
            <div className="row">
              <button type="button" className="secondary" onClick={() => remove.mutate({})} disabled={remove.isPending}>
                Remove photo
              </button>
            </div>
          )}
          <Refusal error={remove.error} />
        </div>

        <h3 className="label spaced">Email</h3>
        <p className="email-line">
          <span>{account.email}</span>
          {account.emailVerified ? <span className="badge ok">Verified</span> : <span className="badge warn">Not verified</span>}
        </p>
        <p className="hint">Sign-in links go to this address. It cannot be changed here.</p>
      </div>
    </div>
  );
}

/** The account's name, as people in its teams and on community cards see it. */
function NameForm({ account }: { account: Account }) {
  const [saved, setSaved] = useState(false);
  const setName = useChange('setName', () => setSaved(true));
  const saveName = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setSaved(false);
    setName.mutate({ body: { name: String(new FormData(event.currentTarget).get('name') ?? '') } });
  };
  return (
    <>
      <form className="inline" onSubmit={saveName} noValidate>
        <Field
          label="Name"
          name="name"
          defaultValue={account.nameChosen === false ? '' : account.displayName}
          placeholder={account.suggestedName ?? ''}
          maxLength={80}
          required
          error={setName.error}
          hint={
            account.nameChosen === false && account.suggestedName
              ? `Until you choose one, people see "${account.displayName}".`
              : 'What people in your teams and on community cards see.'
          }
          onChange={() => setSaved(false)}
        />
        <button type="submit" disabled={setName.isPending}>
          Save name
        </button>
      </form>
      {/* A 400's issue is said beneath the field; anything else here. */}
      <Refusal error={isStatus(setName.error, 400) && fieldProblem(setName.error, 'name') ? null : setName.error} />
      {saved && (
        <p className="ok" role="status">
          Name saved: {account.displayName}.
        </p>
      )}
    </>
  );
}
