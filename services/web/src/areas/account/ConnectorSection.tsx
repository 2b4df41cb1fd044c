import { useId, useState, type FormEvent } from 'react';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { CopyButton } from '../../ui/CopyButton.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';
import { isConnector } from './connector-sessions.js';

// Tokens for an AI assistant (MCP at /mcp, docs/connector.md). The token is in the reply once and
// never again, so it is shown here with a copy button and how to use it; afterwards the tokens
// are listed among the sessions, and ended the same way.

export function ConnectorSection() {
  const sessions = useOp('sessions');
  const create = useChange('createConnectorToken');
  const revoke = useChange('revokeSession');
  const readOnlyId = useId();
  const daysId = useId();
  const [shown, setShown] = useState(true);
  const tokens = (sessions.data ?? []).filter(isConnector);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const name = String(form.get('name') ?? '').trim();
    setShown(true);
    create.mutate({ body: { ...(name ? { name } : {}), readOnly: form.get('readOnly') === 'on', days: Number(form.get('days') ?? 90) } });
  };
  const made = shown ? create.data : undefined;

  return (
    <Section title={`AI-assistant connector${sessions.data ? ` (${tokens.length})` : ''}`}>
      <p className="muted">A token lets an AI assistant (Claude, Cursor, VS Code) work on your active workspace through the connector. A read-only token cannot change anything.</p>
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
        <button type="submit" disabled={create.isPending}>Create token</button>
      </form>
      <Refusal error={create.error} retry={() => create.variables && create.mutate(create.variables)} />
      {made && (
        <div className="token-once" role="region" aria-label="The new token">
          <p><strong>Copy this token now: it is not shown again.</strong> It is valid until <Time at={made.expiresAt} />{made.readOnly ? ', read-only' : ''}.</p>
          <code id="connector-token">{made.token}</code>
          <div className="row">
            <CopyButton value={made.token} label="Copy token" />
            <button type="button" className="link" onClick={() => setShown(false)}>I have copied it</button>
          </div>
          <p className="spaced">In Claude Code:</p>
          <pre>{`claude mcp add --transport http demo-rooms ${made.mcpUrl} \\\n  --header "Authorization: Bearer ${made.token}"`}</pre>
          <p>Any other client: the address <code>{made.mcpUrl}</code> and the header <code>Authorization: Bearer …</code> with this token.</p>
        </div>
      )}
      <h3 className="spaced">Tokens in use</h3>
      <Async query={sessions} lines={2} isEmpty={() => tokens.length === 0} empty={<p>No token yet. Create one above, then give it to your assistant.</p>}>
        {() => (
          <ul className="account-list" aria-label="Connector tokens">
            {tokens.map((t) => (
              <li key={t.id}>
                <div className="what">
                  <strong>{t.connectorName ?? 'Connector token'}</strong>{t.readOnly && <> <span className="badge">Read-only</span></>}
                  <span className="muted">Created <Time at={t.createdAt} />, {t.lastUsedAt ? <>last used <Time at={t.lastUsedAt} /></> : 'not used yet'}, expires <Time at={t.expiresAt} /></span>
                </div>
                <button type="button" className="secondary" onClick={() => revoke.mutate({ params: { sessionId: t.id } })} disabled={revoke.isPending}>
                  Revoke<span className="sr-only"> token</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </Async>
      <Refusal error={revoke.error} />
    </Section>
  );
}
