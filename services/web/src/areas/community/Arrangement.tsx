import { useState } from 'react';
import { api } from '../../api/client.js';
import { useAction, useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Dialog } from '../../ui/Dialog.js';
import { Confirm } from '../../ui/Confirm.js';
import { Field } from '../../ui/Field.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';

// The order projects are shown in: ungrouped first, then each group. Moving is by buttons (up,
// down, into a group), each one arrangeProjects call with the whole new layout.

type Placed = { id: string; slug: string; name: string; groupId: string | null; standing: string };
type Group = { id: string; name: string; projects: string[] };
type Layout = { ungrouped: string[]; groups: { id: string; projects: string[] }[] };

const STANDING: Record<string, string> = { unlisted: '', listed: 'ok', blocked: 'bad', pulled: 'bad', pending: 'warn' };

export function Arrangement() {
  const arrangement = useOp('getArrangement');
  const arrange = useChange('arrangeProjects');
  return (
    <Section title="Groups of projects">
      <NewGroup />
      <Refusal error={arrange.error} />
      <Async
        query={arrangement}
        lines={4}
        isEmpty={(a) => a.projects.length === 0 && a.groups.length === 0}
        empty={<p>No projects yet. Create one under Projects; it appears here to be grouped.</p>}
      >
        {(a) => {
          const projects = a.projects as Placed[];
          const groups = a.groups as Group[];
          const byId = new Map(projects.map((p) => [p.id, p]));
          const layout: Layout = {
            ungrouped: projects.filter((p) => p.groupId === null).map((p) => p.id),
            groups: groups.map((g) => ({ id: g.id, projects: [...g.projects] })),
          };
          const listOf = (groupId: string | null) =>
            groupId === null ? layout.ungrouped : layout.groups.find((g) => g.id === groupId)!.projects;
          const move = (id: string, from: string | null, to: string | null, by = 0) => {
            const next: Layout = structuredClone(layout);
            const source = groupId(next, from);
            const at = source.indexOf(id);
            source.splice(at, 1);
            const target = groupId(next, to);
            target.splice(from === to ? Math.max(0, Math.min(target.length, at + by)) : target.length, 0, id);
            arrange.mutate({ body: next });
          };
          const lists: { id: string | null; name: string }[] = [
            { id: null, name: 'Not in a group' },
            ...groups.map((g) => ({ id: g.id, name: g.name })),
          ];
          return (
            <div className="groups">
              {lists.map((l) => (
                <div key={l.id ?? 'none'} className="group">
                  <div className="row group-head">
                    <h3 className="grow">
                      {l.name} <span className="muted">({listOf(l.id).length})</span>
                    </h3>
                    {l.id && <GroupActions group={groups.find((g) => g.id === l.id)!} />}
                  </div>
                  {listOf(l.id).length === 0 ? (
                    <p className="muted">No projects here. Move one in with its “Move to” menu.</p>
                  ) : (
                    <ol className="placed">
                      {listOf(l.id).map((id, i, ids) => {
                        const p = byId.get(id);
                        if (!p) return null;
                        return (
                          <PlacedProject
                            key={id}
                            project={p}
                            first={i === 0}
                            last={i === ids.length - 1}
                            here={l.id}
                            lists={lists}
                            pending={arrange.isPending}
                            move={(to, by) => move(id, l.id, to, by)}
                          />
                        );
                      })}
                    </ol>
                  )}
                </div>
              ))}
            </div>
          );
        }}
      </Async>
    </Section>
  );
}

const groupId = (layout: Layout, id: string | null) => (id === null ? layout.ungrouped : layout.groups.find((g) => g.id === id)!.projects);

function GroupActions({ group }: { group: Group }) {
  const [renaming, setRenaming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [name, setName] = useState(group.name);
  const rename = useChange('renameGroup', () => setRenaming(false));
  const remove = useChange('deleteGroup', () => setDeleting(false));
  const params = { groupId: group.id };
  return (
    <>
      <button type="button" className="secondary small" onClick={() => setRenaming(true)}>
        Rename<span className="sr-only"> group {group.name}</span>
      </button>
      <button type="button" className="secondary small" onClick={() => setDeleting(true)}>
        Delete<span className="sr-only"> group {group.name}</span>
      </button>
      <Dialog open={renaming} onOpenChange={setRenaming} title={`Rename ${group.name}`}>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            rename.mutate({ params, body: { name } });
          }}
        >
          <Field
            label="Group name"
            name="name"
            value={name}
            maxLength={40}
            required
            onChange={(e) => setName(e.target.value)}
            error={rename.error}
          />
          <Refusal error={rename.error} />
          <button type="submit" disabled={rename.isPending}>
            Rename group
          </button>
        </form>
      </Dialog>
      <Confirm
        open={deleting}
        onClose={() => setDeleting(false)}
        title={`Delete ${group.name}?`}
        description="Its projects move to the end of those not in a group; nothing else changes."
        action="Delete group"
        onConfirm={() => remove.mutate({ params })}
        pending={remove.isPending}
        error={remove.error}
      />
    </>
  );
}

/** A one-time address into the listed room, signed in as oneself, opened in a new tab. */
export function PassButton({ slug, name }: { slug: string; name: string }) {
  const pass = useAction(
    (s: string) => api.call('communityPass', { body: { slug: s } }),
    (r) => {
      window.open(r.url, '_blank', 'noopener');
    },
  );
  return (
    <>
      <button type="button" className="secondary small" disabled={pass.isPending} onClick={() => pass.mutate(slug)}>
        Open signed in<span className="sr-only">: {name}</span>
      </button>
      <Refusal error={pass.error} />
    </>
  );
}

/** One project in its list: its standing, its public page, and its moves (up, down, to another list). */
function PlacedProject({
  project: p,
  first,
  last,
  here,
  lists,
  pending,
  move,
}: {
  project: Placed;
  first: boolean;
  last: boolean;
  here: string | null;
  lists: { id: string | null; name: string }[];
  pending: boolean;
  move: (to: string | null, by?: number) => void;
}) {
  return (
    <li className="row">
      <span className="grow">
        <strong>{p.name}</strong> <span className="muted">{p.slug}</span>
      </span>
      {p.standing !== 'unlisted' && <span className={`badge ${STANDING[p.standing] ?? ''}`}>{p.standing}</span>}
      {p.standing === 'listed' && (
        <>
          <a href={`/p/${p.slug}`} target="_blank" rel="noreferrer">
            Public page<span className="sr-only"> of {p.name}</span>
          </a>
          <PassButton slug={p.slug} name={p.name} />
        </>
      )}
      <button type="button" className="secondary small" disabled={first || pending} onClick={() => move(here, -1)}>
        Up<span className="sr-only">: {p.name}</span>
      </button>
      <button type="button" className="secondary small" disabled={last || pending} onClick={() => move(here, 1)}>
        Down<span className="sr-only">: {p.name}</span>
      </button>
      <label className="sr-only" htmlFor={`move-${p.id}`}>
        Move {p.name} to
      </label>
      <select
        id={`move-${p.id}`}
        className="move-to"
        value=""
        disabled={pending}
        onChange={(e) => move(e.target.value === 'none' ? null : e.target.value)}
      >
        <option value="">Move to…</option>
        {lists
          .filter((o) => o.id !== here)
          .map((o) => (
            <option key={o.id ?? 'none'} value={o.id ?? 'none'}>
              {o.name}
            </option>
          ))}
      </select>
    </li>
  );
}

/** A new group, by name. */
function NewGroup() {
  const [name, setName] = useState('');
  const create = useChange('createGroup', () => setName(''));
  return (
    <>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ body: { name } });
        }}
      >
        <Field
          label="New group"
          name="name"
          value={name}
          maxLength={40}
          required
          onChange={(e) => setName(e.target.value)}
          error={create.error}
        />
        <button type="submit" disabled={create.isPending || !name.trim()}>
          Add group
        </button>
      </form>
      <Refusal error={create.error} />
    </>
  );
}
