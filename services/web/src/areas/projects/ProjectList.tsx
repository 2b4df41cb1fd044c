import { useState } from 'react';
import { Link, useLocation } from 'wouter';
import { useChange, useOp } from '../../api/hooks.js';
import { isStatus } from '../../api/refusal-words.js';
import { Async } from '../../ui/Async.js';
import { Field } from '../../ui/Field.js';
import { Page, Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';
import { Time } from '../../ui/Time.js';
import { NameStep } from '../../shell/NameStep.js';
import { DeployCommand } from './DeployCommand.js';
import './projects.css';

// The workspace's projects (also the home page): each a panel that leads to its builds, and the
// form that makes a new one. Links use `~/projects/…` because this list is shown both at `/` and
// nested under `/projects`.

export function ProjectList() {
  const projects = useOp('listProjects');
  const count = projects.data?.length;
  return (
    <Page
      title="Projects"
      lead={count === undefined ? 'Your demo rooms.' : `${count} ${count === 1 ? 'project' : 'projects'} in this workspace.`}
    >
      <NameStep />
      <CreateProject />
      <Async
        query={projects}
        lines={6}
        empty={
          <>
            <p>
              <strong>No projects yet.</strong> Create one above, or deploy from your demo's folder and the tool creates it:
            </p>
            <p>
              <DeployCommand />
            </p>
          </>
        }
      >
        {(list) => (
          <ul className="grid plain-list" aria-label="Projects">
            {list.map((p) => (
              <li key={p.id} className="panel project-panel">
                <h2>
                  <Link href={`~/projects/${p.id}`}>{p.name}</Link>
                </h2>
                <span className="address">{p.slug}</span>
                <span>
                  {p.liveBuildId ? <span className="badge live">Live</span> : <span className="badge">No build yet</span>}{' '}
                  <span className="badge">{p.visibility}</span>
                </span>
                <span className="muted">
                  Created <Time at={p.createdAt} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </Async>
    </Page>
  );
}

/** A slug from a name, as the tool makes one: lower case, dashes, 3 to 40 characters. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);

function CreateProject() {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [, navigate] = useLocation();
  // Into the new project, where its Builds tab shows the command that deploys to it.
  const create = useChange('createProject', (project) => navigate(`~/projects/${project.id}`));
  const wanted = slug.trim() || slugOf(name);
  // 409 (taken) and 422 (reserved, format…) are about the address: said beside that field.
  const aboutSlug = isStatus(create.error, 409) || isStatus(create.error, 422);
  return (
    <Section title="New project">
      <form
        className="row create-project"
        onSubmit={(e) => {
          e.preventDefault();
          create.mutate({ body: { name: name.trim(), slug: wanted } });
        }}
      >
        <Field
          label="Name"
          name="name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          required
          maxLength={80}
          error={create.error}
        />
        <div className="slug-field">
          <Field
            label="Address (slug)"
            name="slug"
            value={slug}
            placeholder={slugOf(name) || 'acme-checkout'}
            onChange={(e) => setSlug(e.target.value)}
            maxLength={40}
            error={create.error}
            aria-invalid={aboutSlug || undefined}
            hint="Lower-case letters, digits and dashes; 3 to 40. Left empty, made from the name."
          />
          {aboutSlug && <Refusal error={create.error} />}
        </div>
        <button type="submit" disabled={create.isPending || !name.trim()}>
          {create.isPending ? 'Creating…' : 'Create project'}
        </button>
      </form>
      {!aboutSlug && <Refusal error={create.error} />}
    </Section>
  );
}
