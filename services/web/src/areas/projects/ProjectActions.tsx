import { useState } from 'react';
import { useLocation } from 'wouter';
import type { Project } from '@demo-rooms/contract';
import { api } from '../../api/client.js';
import { useAction, useChange } from '../../api/hooks.js';
import { Confirm } from '../../ui/Confirm.js';
import { Field } from '../../ui/Field.js';

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
      <button
        type="button"
        className="secondary"
        onClick={() => {
          setName(project.name);
          rename.reset();
          setOpen(true);
        }}
      >
        Rename
      </button>
      <Confirm
        open={open}
        onClose={() => setOpen(false)}
        title="Rename project"
        description="The room's address stays the same."
        danger={false}
        action="Save name"
        onConfirm={() => rename.mutate({ params: { projectId: project.id }, body: { name: name.trim() } })}
        pending={rename.isPending}
        error={rename.error}
        disabled={!name.trim()}
      >
        <Field
          label="Name"
          name="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={80}
          error={rename.error}
        />
      </Confirm>
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
      <button
        type="button"
        className="danger"
        onClick={() => {
          setTyped('');
          remove.reset();
          setOpen(true);
        }}
      >
        Delete project
      </button>
      <Confirm
        open={open}
        onClose={() => setOpen(false)}
        title={`Delete ${project.name}?`}
        description="Every link to the room stops at once. Its address is held for 30 days, then anyone may take it."
        action="Delete forever"
        onConfirm={() => remove.mutate(typed)}
        pending={remove.isPending}
        error={remove.error}
        disabled={typed !== project.slug}
      >
        <Field
          label={
            <>
              Type <code>{project.slug}</code> to confirm
            </>
          }
          name="confirm"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          autoComplete="off"
          spellCheck={false}
          error={remove.error}
        />
      </Confirm>
    </>
  );
}
