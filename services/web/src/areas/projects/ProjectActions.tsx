import { useState } from 'react';
import { useLocation } from 'wouter';
import type { Project } from '../../../../contract/resources/project.js';
import { api } from '../../api/client.js';
import { useAction, useChange } from '../../api/hooks.js';
import { Dialog } from '../../ui/Dialog.js';
import { Field } from '../../ui/Field.js';
import { Refusal } from '../../ui/Refusal.js';

// The project page's own actions: a new name (the address stays), and deleting it, which asks
// for the slug typed as the API does (its links stop, the slug is held 30 days).

export function ProjectActions({ project }: { project: Project }) {
  return (
    <>
      <Rename project={project} />
      <Delete project={project} />
    </>
  );
}

function Rename({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(project.name);
  const rename = useChange('renameProject', () => setOpen(false));
  return (
    <>
      <button type="button" className="secondary" onClick={() => { setName(project.name); rename.reset(); setOpen(true); }}>Rename</button>
      <Dialog open={open} onOpenChange={setOpen} title="Rename project" description="The room's address stays the same.">
        <form onSubmit={(e) => { e.preventDefault(); rename.mutate({ params: { projectId: project.id }, body: { name: name.trim() } }); }}>
          <Field label="Name" name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={80} error={rename.error} />
          <Refusal error={rename.error} />
          <div className="row">
            <button type="submit" disabled={rename.isPending || !name.trim()}>Save name</button>
            <button type="button" className="secondary" onClick={() => setOpen(false)}>Cancel</button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function Delete({ project }: { project: Project }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const [, navigate] = useLocation();
  // Away from the page before every read is refreshed, so nothing asks for the deleted project.
  const remove = useAction(async (confirm: string) => {
    const done = await api.call('deleteProject', { params: { projectId: project.id }, body: { confirm } });
    navigate('~/projects');
    return done;
  });
  return (
    <>
      <button type="button" className="danger" onClick={() => { setTyped(''); remove.reset(); setOpen(true); }}>Delete project</button>
      <Dialog open={open} onOpenChange={setOpen} title={`Delete ${project.name}?`} description="Every link to the room stops at once. Its address is held for 30 days, then anyone may take it.">
        <form onSubmit={(e) => { e.preventDefault(); remove.mutate(typed); }}>
          <Field label={<>Type <code>{project.slug}</code> to confirm</>} name="confirm" value={typed} onChange={(e) => setTyped(e.target.value)} autoComplete="off" spellCheck={false} error={remove.error} />
          <Refusal error={remove.error} />
          <div className="row">
            <button type="submit" className="danger" disabled={typed !== project.slug || remove.isPending}>Delete forever</button>
            <button type="button" className="secondary" onClick={() => setOpen(false)}>Cancel</button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
