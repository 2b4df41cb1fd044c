import { startRegistration } from '@simplewebauthn/browser';
import { useState } from 'react';
import { api } from '../../api/client.js';
import { useAction, useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { Refusal } from '../../ui/Refusal.js';
import { Section } from '../../ui/Page.js';
import { Time } from '../../ui/Time.js';
import { passkeysHere, settings } from '../../settings.js';
import type { Passkey } from '@demo-rooms/contract';

// The ways into the account: emailed links (always), passkeys, and the providers the operator set
// up. A passkey is made here by the browser's authenticator; connecting a provider sends the
// browser to it while signed in, which links it instead of signing in.

const providerLabel: Record<string, string> = { github: 'GitHub', google: 'Google' };

/** The authenticator said no (cancelled, timed out, none present): not the API's refusal. */
class NoPasskey extends Error {}

export function SignInSection() {
  return (
    <Section title="Sign-in methods">
      <p className="muted">
        Emailed links always reach your address. A passkey signs you in with your device's lock (fingerprint, face, PIN), no email needed.
      </p>

      <Passkeys />

      <h3 className="spaced">Providers</h3>
      <Providers />
    </Section>
  );
}

/** The account's passkeys: one made here by the browser's authenticator, each renamed or removed. */
function Passkeys() {
  const passkeys = useOp('passkeys');
  const [removing, setRemoving] = useState<string | null>(null);
  const [newName, setNewName] = useState('');
  const add = useAction(async () => {
    const optionsJSON = await api.call('passkeyRegisterOptions');
    let response;
    try {
      response = await startRegistration({ optionsJSON: optionsJSON as never });
    } catch (error) {
      throw new NoPasskey(
        `No passkey was made: ${error instanceof Error ? error.message : String(error)}. Try again when your device asks.`,
      );
    }
    const name = newName.trim();
    const list = await api.call('registerPasskey', { body: { response: response as never, ...(name ? { name } : {}) } });
    setNewName('');
    return list;
  });
  const remove = useChange('removePasskey', () => setRemoving(null));

  return (
    <>
      <div className="panel-head">
        <h3>Passkeys{passkeys.data ? ` (${passkeys.data.length})` : ''}</h3>
        {passkeysHere() && (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              add.mutate(undefined);
            }}
          >
            <label className="sr-only" htmlFor="passkey-name">
              Name of the new passkey
            </label>
            <input
              id="passkey-name"
              value={newName}
              onChange={(e) => setNewName(e.target.value)}
              maxLength={60}
              placeholder="Its name, e.g. Work laptop (optional)"
            />
            <button type="submit" disabled={add.isPending}>
              {add.isPending ? 'Waiting for your device…' : 'Add a passkey'}
            </button>
          </form>
        )}
      </div>
      {!passkeysHere() && (
        <p className="muted">
          Passkeys cannot be made at this address
          {settings.passkeyOrigin ? (
            <>
              : open <a href={`${settings.passkeyOrigin}/account`}>{settings.passkeyOrigin}</a> to add one
            </>
          ) : (
            ' (the platform is not served from a name a passkey can belong to)'
          )}
          .
        </p>
      )}
      <Refusal error={add.error} retry={() => add.mutate(undefined)} />
      {add.isSuccess && (
        <p className="ok" role="status">
          Passkey added. Next time, choose "Sign in with a passkey".
        </p>
      )}
      <Async query={passkeys} lines={2} empty={<p>No passkey yet. Add one to sign in without waiting for an email.</p>}>
        {(list) => (
          <ul className="account-list" aria-label="Passkeys">
            {list.map((p, i) => (
              <PasskeyItem
                key={p.id}
                passkey={p}
                label={p.name ?? `Passkey ${i + 1}`}
                onRemove={() => {
                  remove.reset();
                  setRemoving(p.id);
                }}
              />
            ))}
          </ul>
        )}
      </Async>
      <Confirm
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title="Remove this passkey?"
        description="The device that holds it will no longer sign you in here. Emailed links still do."
        action="Remove passkey"
        onConfirm={() => removing && remove.mutate({ params: { passkeyId: removing } })}
        pending={remove.isPending}
        error={remove.error}
      />
    </>
  );
}

/** The providers the operator set up (or the account linked), each connected or disconnected here. */
function Providers() {
  const signIns = useOp('signIns');
  const connect = useAction(async (provider: string) => {
    const { url } = await api.call('providerStart', { params: { provider }, body: { next: '/account' } });
    window.location.assign(url);
  });
  const disconnect = useChange('disconnect');

  return (
    <>
      <Async query={signIns} lines={2}>
        {(ways) => {
          const providers = (ways.providers as { provider: string; setUp: boolean; linked: boolean }[]).filter((p) => p.setUp || p.linked);
          if (providers.length === 0) return <p className="muted">No sign-in provider (GitHub, Google) is set up on this platform.</p>;
          return (
            <ul className="account-list" aria-label="Providers">
              {providers.map((p) => {
                const name = providerLabel[p.provider] ?? p.provider;
                return (
                  <li key={p.provider}>
                    <div className="what">
                      <strong>{name}</strong>
                      {p.linked ? <span className="badge ok">Connected</span> : <span className="badge">Not connected</span>}
                    </div>
                    {p.linked ? (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => disconnect.mutate({ params: { provider: p.provider } })}
                        disabled={disconnect.isPending}
                      >
                        Disconnect {name}
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => connect.mutate(p.provider)}
                        disabled={connect.isPending || !p.setUp}
                      >
                        Connect {name}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          );
        }}
      </Async>
      <Refusal error={disconnect.error} retry={() => disconnect.variables && disconnect.mutate(disconnect.variables)} />
      <Refusal error={connect.error} retry={() => connect.variables && connect.mutate(connect.variables)} />
    </>
  );
}

/** One passkey: its name (renamed in place) and when it was added and last used. */
function PasskeyItem({ passkey: p, label, onRemove }: { passkey: Passkey; label: string; onRemove: () => void }) {
  const [name, setName] = useState<string | null>(null);
  const rename = useChange('renamePasskey', () => setName(null));
  return (
    <li>
      <div className="what">
        {name === null ? (
          <strong>
            {label} {p.backedUp ? <span className="badge ok">Synced</span> : <span className="badge">This device only</span>}
          </strong>
        ) : (
          <form
            className="row"
            onSubmit={(e) => {
              e.preventDefault();
              rename.mutate({ params: { passkeyId: p.id }, body: { name } });
            }}
          >
            <label className="sr-only" htmlFor={`passkey-${p.id}`}>
              New name of {label}
            </label>
            <input id={`passkey-${p.id}`} value={name} onChange={(e) => setName(e.target.value)} maxLength={60} autoFocus />
            <button type="submit" disabled={!name.trim() || rename.isPending}>
              Save name<span className="sr-only"> of {label}</span>
            </button>
            <button type="button" className="secondary" onClick={() => setName(null)}>
              Cancel<span className="sr-only"> renaming {label}</span>
            </button>
          </form>
        )}
        <span className="muted">
          Added <Time at={p.createdAt} />,{' '}
          {p.lastUsedAt ? (
            <>
              last used <Time at={p.lastUsedAt} />
            </>
          ) : (
            'not used yet'
          )}
        </span>
        <Refusal error={rename.error} />
      </div>
      {name === null && (
        <div className="row">
          <button
            type="button"
            className="secondary"
            onClick={() => {
              rename.reset();
              setName(p.name ?? '');
            }}
          >
            Rename<span className="sr-only"> {label}</span>
          </button>
          <button type="button" className="secondary" onClick={onRemove}>
            Remove<span className="sr-only"> {label}</span>
          </button>
        </div>
      )}
    </li>
  );
}
