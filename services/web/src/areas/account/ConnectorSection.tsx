import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { Session } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { CopyButton } from '../../ui/CopyButton.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Day, Time } from '../../ui/Time.js';
import { isConnector } from './connector-sessions.js';

// Tokens for an AI assistant (MCP at /mcp, docs/connector.md). The token is in the reply once and
// never again, so it is shown here with a copy button and how to use it; afterwards the tokens
// are listed among the sessions, and ended the same way. The list is always the server's: a revoke
// is confirmed first, its reply (the sessions left) replaces the list, and every read is made again
// (issue 29: a list emptied in the page while the tokens still worked).

const tokenName = (t: Session) => t.connectorName ?? 'Connector token';

export function ConnectorSection() {
  const sessions = useOp('sessions');
  const queries = useQueryClient();
  const [revoking, setRevoking] = useState<Session | null>(null);
  const revoke = useChange('revokeSession', (left) => {
    queries.setQueryData(['sessions', null, null], left);
    setRevoking(null);
  });
  const tokens = (sessions.data ?? []).filter(isConnector);
  // Each revoke button's accessible name tells its token apart, by its id when names repeat.
  const spoken = (t: Session) =>
    `“${tokenName(t)}”${tokens.filter((o) => tokenName(o) === tokenName(t)).length > 1 ? ` (${t.id.slice(0, 8)})` : ''}`;

  return (
    <Section title={`AI-assistant connector${sessions.data ? ` (${tokens.length})` : ''}`}>
      <p className="muted">
        A token lets an AI assistant (Claude, Cursor, VS Code) work on your active workspace through the connector. A read-only token cannot
        change anything.
      </p>
      <NewToken />
      <h3 className="spaced">Tokens in use</h3>
      <Async
        query={sessions}
        lines={2}
        isEmpty={() => tokens.length === 0}
        empty={<p>No token yet. Create one above, then give it to your assistant.</p>}
      >
        {() => (
          <ul className="account-list" aria-label="Connector tokens">
            {tokens.map((t) => (
              <li key={t.id}>
                <div className="what">
                  <strong>{tokenName(t)}</strong>
                  {t.readOnly && (
                    <>
                      {' '}
                      <span className="badge">Read-only</span>
                    </>
                  )}
                  <span className="muted">
                    Created <Time at={t.createdAt} />,{' '}
                    {t.lastUsedAt ? (
                      <>
                        last used <Time at={t.lastUsedAt} />
                      </>
                    ) : (
                      'not used yet'
                    )}
                    , expires <Time at={t.expiresAt} />
                  </span>
                </div>
                <button
                  type="button"
                  className="secondary"
                  onClick={() => {
                    revoke.reset();
                    setRevoking(t);
                  }}
                >
                  Revoke<span className="sr-only"> token {spoken(t)}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Async>
      <Confirm
        open={revoking !== null}
        onClose={() => setRevoking(null)}
        title={`Revoke the token ${revoking ? spoken(revoking) : ''}?`}
        description="The assistant using it is signed out at once; the token cannot be used again. Other tokens keep working."
        action="Revoke token"
        onConfirm={() => revoking && revoke.mutate({ params: { sessionId: revoking.id } })}
        pending={revoke.isPending}
        error={revoke.error}
      />
    </Section>
  );
}

/** A new token: what it is for, how long, read-only or not; shown once, with how to use it. */
function NewToken() {
  const create = useChange('createConnectorToken');
  const readOnlyId = useId();
  const daysId = useId();
  const [shown, setShown] = useState(true);
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    setShown(true);
    create.mutate({ body: { ...(name ? { name } : {}), readOnly: form.get('readOnly') === 'on', days: Number(form.get('days') ?? 90) } });
  };
  const made = shown ? create.data : undefined;

  return (
    <>
      <form className="inline" onSubmit={submit} noValidate>
        <Field label="What it is for" name="name" placeholder="Claude Code on my laptop" maxLength={80} error={create.error} />
        <div className="field">
          <label htmlFor={daysId}>Valid for</label>
          <select id={daysId} name="days" defaultValue="90">
            <option value="7">7 days</option>
            <option value="30">30 days</option>
            <option value="90">90 days</option>
            <option value="365">365 days</option>
          </select>
        </div>
        <div className="field row">
          <input id={readOnlyId} type="checkbox" name="readOnly" />
          <label htmlFor={readOnlyId}>Read-only</label>
        </div>
        <button type="submit" disabled={create.isPending}>
          Create token
        </button>
      </form>
      <Refusal error={create.error} retry={() => create.variables && create.mutate(create.variables)} />
      {made && (
        <div className="token-once" role="region" aria-label="The new token">
          <p>
            <strong>Copy this token now: it is not shown again.</strong> It is valid until <Day at={made.expiresAt} />
            {made.readOnly ? ', read-only' : ''}.
          </p>
          <code id="connector-token">{made.token}</code>
          <div className="row">
            <CopyButton value={made.token} label="Copy token" />
            <button type="button" className="link" onClick={() => setShown(false)}>
              I have copied it
            </button>
          </div>
          <p className="spaced">In Claude Code:</p>
          <pre>{`claude mcp add --transport http demo-rooms ${made.mcpUrl} \\\n  --header "Authorization: Bearer ${made.token}"`}</pre>
          <p>
            Any other client: the address <code>{made.mcpUrl}</code> and the header <code>Authorization: Bearer …</code> with this token.
          </p>
        </div>
      )}
    </>
  );
}
