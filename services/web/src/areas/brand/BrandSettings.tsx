import { useRef, useState } from 'react';
import { sizeText } from '@demo-rooms/contract';
import { addressOf, api } from '../../api/client.js';
import { useAction, useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { ColourInput } from './ColourInput.js';
import { Problems, problemsOf } from './Problems.js';

type Brand = NonNullable<ReturnType<typeof useOp<'getBrand'>>['data']>;

export function BrandSettings() {
  const brand = useOp('getBrand');
  const me = useOp('whoami');
  return (
    <Section title="Brand">
      <Async query={brand} lines={5}>
        {(b) => <BrandForm brand={b} workspaceId={me.data?.workspace?.id} />}
      </Async>
    </Section>
  );
}

function BrandForm({ brand, workspaceId }: { brand: Brand; workspaceId?: string }) {
  const [name, setName] = useState(brand.name ?? '');
  const [accent, setAccent] = useState(brand.accent ?? '');
  const save = useChange('setBrand');
  return (
    <>
      {!brand.planAllows && (
        <p className="notice">
          Your plan shows rooms with the made-with badge instead of your brand; what you set here is kept for when the plan allows it.
        </p>
      )}
      <div className="brand-grid">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            save.mutate({ body: { name: name.trim() || null, accent: accent || null } });
          }}
        >
          <Field
            label="Brand name"
            name="name"
            value={name}
            maxLength={80}
            placeholder={brand.workspaceName}
            hint="Shown in the room's bar; empty for the workspace's name."
            onChange={(e) => setName(e.target.value)}
            error={save.error}
          />
          <ColourInput label="Brand accent" value={accent} placeholder="the room's own" onChange={setAccent} />
          <div className="row">
            <button type="submit" disabled={save.isPending}>
              Save brand
            </button>
            {accent && (
              <button type="button" className="link" onClick={() => setAccent('')}>
                No brand accent
              </button>
            )}
            {save.isSuccess && (
              <span className="ok" role="status">
                Saved.
              </span>
            )}
          </div>
          <Refusal error={save.error} />
          <Problems problems={problemsOf(save.error)} onUse={(_t, shade) => setAccent(shade)} />
          {(brand.problems?.length ?? 0) > 0 && (
            <>
              <p className="notice">The stored accent is hard to read with the theme as it is now, so rooms draw their own accent.</p>
              <Problems problems={brand.problems!} onUse={(_t, shade) => setAccent(shade)} />
            </>
          )}
        </form>
        <LogoPanel brand={brand} workspaceId={workspaceId} />
      </div>
    </>
  );
}

/** The workspace's logo: uploaded, shown with its size, removed. */
function LogoPanel({ brand, workspaceId }: { brand: Brand; workspaceId?: string }) {
  const file = useRef<HTMLInputElement>(null);
  const upload = useAction(
    (f: File) => api.upload('uploadLogo', f, f.type),
    () => {
      if (file.current) file.current.value = '';
    },
  );
  const remove = useChange('removeLogo');
  const logoSrc = brand.logo && workspaceId ? `${addressOf('workspaceLogo', { workspaceId })}?v=${brand.logo.etag.slice(0, 12)}` : null;
  return (
    <div>
      <div className="field">
        <label htmlFor="logo-file">Logo</label>
        <input
          id="logo-file"
          ref={file}
          type="file"
          accept="image/png,image/jpeg,image/webp"
          onChange={(e) => {
            const f = e.target.files?.[0];
            if (f) upload.mutate(f);
          }}
        />
        <p className="hint">PNG, JPEG or WebP, up to 256 KB, 16 to 2048 pixels a side.</p>
      </div>
      {upload.isPending && (
        <p className="muted" role="status">
          Uploading…
        </p>
      )}
      <Refusal error={upload.error} />
      {brand.logo && logoSrc ? (
        <div className="logo-now">
          <img src={logoSrc} alt={`Logo of ${brand.name ?? brand.workspaceName}`} data-testid="brand-logo" />
          <p className="muted">
            {brand.logo.width}×{brand.logo.height} px · {sizeText(brand.logo.bytes)}
          </p>
          <button type="button" className="secondary" disabled={remove.isPending} onClick={() => remove.mutate({})}>
            Remove logo
          </button>
          <Refusal error={remove.error} />
        </div>
      ) : (
        <p className="muted">No logo yet: rooms show the brand name alone.</p>
      )}
    </div>
  );
}
