import { useState } from 'react';
import { useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Confirm } from '../../../ui/Confirm.js';
import { Field } from '../../../ui/Field.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { OrderList } from './OrderList.js';

// The room's own pages (an agenda, pricing…) beside the apps: added here or by the manifest,
// ordered, removed. A page with a title that exists has its content replaced.

type PageHead = { id: string; title: string; kind: string };

export function PagesSection({ projectId }: { projectId: string }) {
  const setup = useOp('getRoomSetup', { params: { projectId } });
  const order = useChange('orderPages');
  const remove = useChange('removePage', () => setRemoving(null));
  const [removing, setRemoving] = useState<PageHead | null>(null);
  return (
    <Section title="Pages">
      <Async
        query={setup}
        lines={3}
        isEmpty={(s) => s.pages.length === 0}
        empty={<p>No pages yet. Add one below (markdown or HTML), or list them in the manifest.</p>}
      >
        {(s) => (
          <>
            <OrderList
              label="Pages in order"
              items={s.pages as PageHead[]}
              keyOf={(p) => p.id}
              name={(p) => p.title}
              busy={order.isPending}
              onMove={(next) => order.mutate({ params: { projectId }, body: { ids: next.map((p) => p.id) } })}
              extra={(p) => (
                <>
                  <span className="badge">{p.kind}</span>
                  <button
                    type="button"
                    className="link"
                    onClick={() => {
                      remove.reset();
                      setRemoving(p);
                    }}
                  >
                    Remove<span className="sr-only"> {p.title}</span>
                  </button>
                </>
              )}
            />
            <Refusal error={order.error} />
          </>
        )}
      </Async>
      <AddPage projectId={projectId} />
      <Confirm
        open={!!removing}
        onClose={() => setRemoving(null)}
        title={`Remove the page ${removing?.title ?? ''}?`}
        description="Viewers no longer see it. The next deploy adds it again if the manifest lists it."
        action="Remove page"
        onConfirm={() => removing && remove.mutate({ params: { projectId, pageId: removing.id } })}
        pending={remove.isPending}
        error={remove.error}
      />
    </Section>
  );
}

function AddPage({ projectId }: { projectId: string }) {
  const [title, setTitle] = useState('');
  const [kind, setKind] = useState<'markdown' | 'html'>('markdown');
  const [content, setContent] = useState('');
  const add = useChange('addPage', () => {
    setTitle('');
    setContent('');
  });
  return (
    <details>
      <summary>Add a page</summary>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          add.mutate({ params: { projectId }, body: { title: title.trim(), kind, content } });
        }}
      >
        <div className="row">
          <Field
            label="Page title"
            name="title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            required
            maxLength={80}
            error={add.error}
          />
          <div className="field">
            <label htmlFor="page-kind">Kind</label>
            <select id="page-kind" value={kind} onChange={(e) => setKind(e.target.value as 'markdown' | 'html')}>
              <option value="markdown">Markdown</option>
              <option value="html">HTML</option>
            </select>
          </div>
        </div>
        <div className="field">
          <label htmlFor="page-content">Content</label>
          <textarea id="page-content" value={content} onChange={(e) => setContent(e.target.value)} rows={6} />
        </div>
        <Refusal error={add.error} />
        <button type="submit" disabled={add.isPending || !title.trim()}>
          Add page
        </button>
      </form>
    </details>
  );
}
