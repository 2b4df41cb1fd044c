import { useRef, useState, type FormEvent } from 'react';
import type { ProductEventKind, WebhookEndpoint } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Confirm } from '../../ui/Confirm.js';
import { CopyButton } from '../../ui/CopyButton.js';
import { Field } from '../../ui/Field.js';
import { Page, Section } from '../../ui/Page.js';
import { Paywall, PlanPending, useAllowance } from '../../ui/Paywall.js';
import { Refusal } from '../../ui/Refusal.js';
import { DeliveryLog } from './DeliveryLog.js';
import { KindChoice, kindWords } from './KindChoice.js';
import './webhooks.css';

// Issue 34: the workspace's webhook endpoints. The signing secret is in the reply of create and
// rotate only, so it is shown here once with a copy button; each endpoint's kinds and switch can
// be changed in place, and its delivery log opened with a re-send per delivery.

export default function WebhooksArea() {
  const endpoints = useOp('listWebhookEndpoints');
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [kinds, setKinds] = useState<ProductEventKind[]>(['link.opened']);
  const formRef = useRef<HTMLFormElement>(null);
  // A plan of no endpoints (Free) is told so before the form, not refused after it (issue 47).
  const endpointsAllowed = useAllowance('webhookEndpoints');
  // An endpoint added empties the form: the address left in it read as not yet added (issue 47).
  const create = useChange('createWebhookEndpoint', (made) => {
    setSecret({ url: made.endpoint.url, secret: made.secret });
    formRef.current?.reset();
    setKinds(['link.opened']);
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const description = String(form.get('description') ?? '').trim();
    create.mutate({ body: { url: String(form.get('url') ?? '').trim(), kinds, ...(description ? { description } : {}) } });
  };

  const form = (
    <form className="webhook-form" onSubmit={submit} noValidate ref={formRef}>
      <Field
        label="Address (https)"
        name="url"
        type="url"
        placeholder="https://hooks.example.com/demo-rooms"
        maxLength={2000}
        required
        error={create.error}
      />
      <Field label="What it is for" name="description" placeholder="Our CRM" maxLength={200} error={create.error} />
      <KindChoice legend="Events it hears" value={kinds} onChange={setKinds} />
      <button type="submit" disabled={create.isPending || kinds.length === 0}>
        Add endpoint
      </button>
    </form>
  );

  return (
    <Page
      title="Webhooks"
      lead="Your systems hear at once when a viewer opens a link, answers, comments or moves stage: each delivery signed (Standard Webhooks)."
    >
      <Section title="Add an endpoint">
        {endpointsAllowed === 0 ? (
          <Paywall upgrade="solo">Webhooks: your plan sends no events to your systems.</Paywall>
        ) : endpointsAllowed === null ? (
          <PlanPending>{form}</PlanPending>
        ) : (
          form
        )}
        <Refusal error={create.error} />
        {secret && <SecretOnce {...secret} onDone={() => setSecret(null)} />}
      </Section>
      <Section title={`Endpoints${endpoints.data ? ` (${endpoints.data.length})` : ''}`}>
        <Async query={endpoints} lines={3} empty={<p>No endpoint yet. Add one above; a test event shows it works.</p>}>
          {(list) => (
            <ul className="webhook-list" aria-label="Endpoints">
              {list.map((e) => (
                <EndpointItem key={e.id} endpoint={e} onSecret={setSecret} />
              ))}
            </ul>
          )}
        </Async>
      </Section>
    </Page>
  );
}

function SecretOnce({ url, secret, onDone }: { url: string; secret: string; onDone: () => void }) {
  return (
    <div className="token-once" role="region" aria-label="The signing secret">
      <p>
        <strong>Copy the signing secret now: it is not shown again.</strong> Verify each delivery to {url} with it (any Standard Webhooks
        library).
      </p>
      <code id="webhook-secret">{secret}</code>
      <div className="row">
        <CopyButton value={secret} label="Copy secret" />
        <button type="button" className="link" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

function EndpointItem({ endpoint: e, onSecret }: { endpoint: WebhookEndpoint; onSecret: (s: { url: string; secret: string }) => void }) {
  const [editing, setEditing] = useState(false);
  const [kinds, setKinds] = useState<ProductEventKind[]>(e.kinds);
  const [showLog, setShowLog] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const update = useChange('updateWebhookEndpoint', () => setEditing(false));
  const remove = useChange('deleteWebhookEndpoint', () => setDeleting(false));
  const rotate = useChange('rotateWebhookSecret', (r) => onSecret({ url: r.endpoint.url, secret: r.secret }));
  const test = useChange('testWebhookEndpoint', () => setShowLog(true));
  const params = { endpointId: e.id };
  const name = e.description || e.url;

  return (
    <li className="webhook-item">
      <div className="what">
        <strong className="webhook-url">{e.url}</strong>
        {e.description && <span className="muted">{e.description}</span>}
        <span className="muted">{e.kinds.map((k) => kindWords[k]).join(', ')}</span>
        {e.enabled ? <span className="badge ok">Enabled</span> : <span className="badge warn">Disabled</span>}
        {e.disabledReason && <p className="problem">Switched off by the platform: {e.disabledReason}</p>}
        {e.creatorLeft && (
          <p className="problem">Added by someone who is no longer a member of this workspace: check where it sends your events.</p>
        )}
      </div>
      <div className="row">
        <button
          type="button"
          className="secondary"
          onClick={() => update.mutate({ params, body: { enabled: !e.enabled } })}
          disabled={update.isPending}
        >
          {e.enabled ? 'Disable' : 'Enable'}
          <span className="sr-only"> {name}</span>
        </button>
        <button type="button" className="secondary" onClick={() => setEditing(!editing)} aria-expanded={editing}>
          Edit events<span className="sr-only"> of {name}</span>
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => test.mutate({ params, body: {} })}
          disabled={!e.enabled || test.isPending}
        >
          Send test event<span className="sr-only"> to {name}</span>
        </button>
        <button type="button" className="secondary" onClick={() => setShowLog(!showLog)} aria-expanded={showLog}>
          Delivery log<span className="sr-only"> of {name}</span>
        </button>
        <button type="button" className="secondary" onClick={() => rotate.mutate({ params })} disabled={rotate.isPending}>
          New secret<span className="sr-only"> for {name}</span>
        </button>
        <button type="button" className="secondary" onClick={() => setDeleting(true)}>
          Delete<span className="sr-only"> {name}</span>
        </button>
      </div>
      <Refusal error={update.error ?? test.error ?? rotate.error} />
      {editing && (
        <form
          className="webhook-form"
          onSubmit={(event) => {
            event.preventDefault();
            update.mutate({ params, body: { kinds } });
          }}
        >
          <KindChoice legend={`Events ${name} hears`} value={kinds} onChange={setKinds} />
          <button type="submit" disabled={update.isPending || kinds.length === 0}>
            Save events
          </button>
        </form>
      )}
      {showLog && <DeliveryLog endpointId={e.id} name={name} />}
      <Confirm
        open={deleting}
        onClose={() => setDeleting(false)}
        title={`Delete the endpoint ${name}?`}
        description="It hears nothing more; its delivery log goes with it."
        action="Delete endpoint"
        onConfirm={() => remove.mutate({ params })}
        pending={remove.isPending}
        error={remove.error}
      />
    </li>
  );
}
