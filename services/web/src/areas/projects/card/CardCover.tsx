import { useRef, useState } from 'react';
import { sizeText } from '@demo-rooms/contract';
import { api } from '../../../api/client.js';
import { useAction, useChange } from '../../../api/hooks.js';
import { Field } from '../../../ui/Field.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import type { Card } from './findings.js';

/** The cover: uploaded, or a file of the live static build (checked first), or none. */
export function CardCover({ card, projectId }: { card: Card; projectId: string }) {
  const params = { projectId };
  const file = useRef<HTMLInputElement>(null);
  const upload = useAction(
    (f: File) => api.upload('uploadCover', f, f.type, params),
    () => {
      if (file.current) file.current.value = '';
    },
  );
  const remove = useChange('removeCover');
  const [path, setPath] = useState('');
  const check = useChange('checkBuildCover');
  const fromBuild = useChange('coverFromBuild', () => setPath(''));
  const cover = card.cover as { url?: string } | null;
  const saved = card.updatedAt !== null;
  return (
    <Section title="Cover">
      {!saved && <p className="notice">Save the card first; a cover belongs to a saved card.</p>}
      {card.coverPending && (
        <p className="notice" role="status">
          A new cover waits for review: the listing shows the one before until it is approved.
        </p>
      )}
      {cover?.url ? (
        <div className="cover-now">
          <img src={cover.url} alt={`Cover of ${card.title || 'this card'}`} />
          <button type="button" className="secondary" disabled={remove.isPending} onClick={() => remove.mutate({ params })}>
            Remove cover
          </button>
          <Refusal error={remove.error} />
        </div>
      ) : (
        <p className="muted">No cover: the listing shows the title and line alone.</p>
      )}
      <div className="field">
        <label htmlFor="cover-file">Upload a cover</label>
        <input
          id="cover-file"
          ref={file}
          type="file"
          accept="image/png,image/jpeg,image/webp"
          disabled={!saved}
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) upload.mutate(f);
          }}
        />
        <p className="hint">PNG, JPEG or WebP, up to 1 MB.</p>
      </div>
      {upload.isPending && (
        <p className="muted" role="status">
          Uploading…
        </p>
      )}
      <Refusal error={upload.error} />
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          check.mutate({ params, body: { path } });
        }}
      >
        <Field
          label="Or a file of the live build"
          name="path"
          value={path}
          placeholder="images/cover.png"
          maxLength={255}
          onChange={(e) => {
            setPath(e.target.value);
            check.reset();
          }}
          error={check.error ?? fromBuild.error}
        />
        <button type="submit" className="secondary" disabled={check.isPending || !path || !saved}>
          Check file
        </button>
        {check.data && (
          <button type="button" disabled={fromBuild.isPending} onClick={() => fromBuild.mutate({ params, body: { path } })}>
            Use as cover
          </button>
        )}
      </form>
      {check.data && (
        <p className="ok" role="status">
          {check.data.path}: {check.data.type}, {sizeText(check.data.bytes)}. It can be the cover.
        </p>
      )}
      <Refusal error={check.error} />
      <Refusal error={fromBuild.error} />
    </Section>
  );
}
