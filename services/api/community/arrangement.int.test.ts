import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type Platform } from '../../../test/support/platform.js';
import { refusal, uniqueSlug } from '../../../test/support/refusal.js';

// The projects' arrangement (spec 4.5; issue 18 item 7): ungrouped first, then each group; a
// repeated id 422, a foreign project or group 404 with nothing moved; what is left out keeps its
// place after what was given; at most 30 groups; deleting a group sends its projects to the end.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

type Person = Awaited<ReturnType<Platform['person']>>;

/** A person on a plan with room for projects, and `n` projects made oldest first. */
async function builder(n: number) {
  const person = await platform.person({ plan: 'agency' });
  const projects: string[] = [];
  for (let i = 0; i < n; i++) {
    projects.push((await person.client.call('createProject', { body: { slug: uniqueSlug(`p${i}`), name: `Project ${i}` } })).id);
  }
  return { person, projects };
}

/** The arrangement as lists of ids: ungrouped, then each group's projects by name. */
async function lists(person: Person) {
  const a = await person.client.call('getArrangement');
  const byGroup = Object.fromEntries(a.groups.map((g) => [g.name as string, g.projects as string[]]));
  const ungrouped = a.projects.filter((p) => p.groupId === null).map((p) => p.id as string);
  return { ungrouped, ...byGroup };
}

const groupId = async (person: Person, name: string) => {
  const a = await person.client.call('createGroup', { body: { name } });
  return a.groups.find((g) => g.name === name)!.id as string;
};

describe('getArrangement', () => {
  it('lists unplaced projects first, newest first, each with its group and standing', async () => {
    const {
      person,
      projects: [a, b, c],
    } = await builder(3);
    const got = await person.client.call('getArrangement');
    expect(got.groups).toEqual([]);
    expect(got.projects.map((p) => p.id)).toEqual([c, b, a]);
    expect(got.projects[0]).toMatchObject({ id: c, name: 'Project 2', groupId: null, standing: 'unlisted' });
    expect(typeof got.projects[0].slug).toBe('string');
  });

  it('leaves out deleted projects and those of other workspaces', async () => {
    const {
      person,
      projects: [a, b],
    } = await builder(2);
    const other = await builder(1);
    const slug = (await person.client.call('getProject', { params: { projectId: a } })).slug;
    await person.client.call('deleteProject', { params: { projectId: a }, body: { confirm: slug } });
    expect((await person.client.call('getArrangement')).projects.map((p) => p.id)).toEqual([b]);
    expect((await other.person.client.call('getArrangement')).projects.map((p) => p.id)).toEqual(other.projects);
  });

  it('needs a sign-in', async () => {
    expect((await platform.fetch('/api/arrangement')).status).toBe(401);
  });
});

describe('arrangeProjects', () => {
  it('places projects in groups and the ungrouped, ungrouped first then each group in order', async () => {
    const {
      person,
      projects: [a, b, c, d],
    } = await builder(4);
    const g1 = await groupId(person, 'Sales');
    const g2 = await groupId(person, 'Internal');
    const got = await person.client.call('arrangeProjects', {
      body: {
        ungrouped: [a],
        groups: [
          { id: g2, projects: [d, b] },
          { id: g1, projects: [c] },
        ],
      },
    });
    expect(got.groups.map((g) => [g.name, g.projects])).toEqual([
      ['Internal', [d, b]],
      ['Sales', [c]],
    ]);
    expect(got.projects.map((p) => [p.id, p.groupId])).toEqual([
      [a, null],
      [d, g2],
      [b, g2],
      [c, g1],
    ]);
    expect(await person.client.call('getArrangement')).toEqual(got);
  });

  it('keeps what is left out in its place after what was given', async () => {
    const {
      person,
      projects: [a, b, c, d, e],
    } = await builder(5);
    const g = await groupId(person, 'Group');
    const h = await groupId(person, 'Other');
    await person.client.call('arrangeProjects', { body: { ungrouped: [a, b, c], groups: [{ id: g, projects: [d, e] }] } });
    // Only c is named in the ungrouped; a and b follow it in their order. The group keeps e after d.
    await person.client.call('arrangeProjects', { body: { ungrouped: [c], groups: [{ id: g, projects: [] }] } });
    expect(await lists(person)).toEqual({ ungrouped: [c, a, b], Group: [d, e], Other: [] });
    // Moving e to the ungrouped takes it out of its group; d stays.
    await person.client.call('arrangeProjects', { body: { ungrouped: [e], groups: [] } });
    expect(await lists(person)).toEqual({ ungrouped: [e, c, a, b], Group: [d], Other: [] });
    // Naming only the second group brings it first; the other follows.
    const got = await person.client.call('arrangeProjects', { body: { ungrouped: [], groups: [{ id: h, projects: [a] }] } });
    expect(got.groups.map((x) => [x.name, x.projects])).toEqual([
      ['Other', [a]],
      ['Group', [d]],
    ]);
    expect(got.projects.filter((p) => p.groupId === null).map((p) => p.id)).toEqual([e, c, b]);
  });

  it('puts a project made after an arrangement first among the ungrouped', async () => {
    const {
      person,
      projects: [a, b],
    } = await builder(2);
    await person.client.call('arrangeProjects', { body: { ungrouped: [a, b], groups: [] } });
    const c = (await person.client.call('createProject', { body: { slug: uniqueSlug('late'), name: 'Late' } })).id;
    expect((await lists(person)).ungrouped).toEqual([c, a, b]);
  });

  it('refuses a repeated project or group with 422 order, and nothing moves', async () => {
    const {
      person,
      projects: [a, b],
    } = await builder(2);
    const g = await groupId(person, 'G');
    const before = await person.client.call('getArrangement');
    for (const body of [
      { ungrouped: [a, a], groups: [] },
      { ungrouped: [a], groups: [{ id: g, projects: [a] }] },
      { ungrouped: [], groups: [{ id: g, projects: [b, b] }] },
      {
        ungrouped: [a],
        groups: [
          { id: g, projects: [b] },
          { id: g, projects: [] },
        ],
      },
    ]) {
      expect(await refusal(person.client.call('arrangeProjects', { body }))).toMatchObject({
        status: 422,
        body: { error: 'refused: order', reason: 'order' },
      });
    }
    expect(await person.client.call('getArrangement')).toEqual(before);
  });

  it("answers 404 for another workspace's project or group, or a missing one, and nothing moves", async () => {
    const {
      person,
      projects: [a, b],
    } = await builder(2);
    const g = await groupId(person, 'Mine');
    const other = await builder(1);
    const theirGroup = await groupId(other.person, 'Theirs');
    await person.client.call('arrangeProjects', { body: { ungrouped: [a, b], groups: [] } });
    const before = await person.client.call('getArrangement');
    for (const body of [
      { ungrouped: [b, other.projects[0]], groups: [] },
      { ungrouped: [b], groups: [{ id: g, projects: [a, other.projects[0]] }] },
      { ungrouped: [b], groups: [{ id: theirGroup, projects: [a] }] },
      { ungrouped: [b], groups: [{ id: randomUUID(), projects: [] }] },
      { ungrouped: ['not-an-id'], groups: [] },
      { ungrouped: [b], groups: [{ id: 'not-an-id', projects: [a] }] },
    ]) {
      expect(await refusal(person.client.call('arrangeProjects', { body }))).toMatchObject({ status: 404, body: { error: 'not found' } });
    }
    expect(await person.client.call('getArrangement')).toEqual(before);
    expect((await other.person.client.call('getArrangement')).groups).toEqual([{ id: theirGroup, name: 'Theirs', projects: [] }]);
  });

  it('never interleaves arrangements made at once: each project stays placed exactly once', async () => {
    const { person, projects } = await builder(6);
    const g = await groupId(person, 'G');
    const orders = Array.from({ length: 8 }, (_, i) => [...projects.slice(i % 6), ...projects.slice(0, i % 6)]);
    await Promise.all(
      orders.map((o, i) =>
        person.client.call('arrangeProjects', {
          body: { ungrouped: o.slice(0, 3), groups: [{ id: g, projects: o.slice(3, 3 + (i % 3)) }] },
        }),
      ),
    );
    const got = await person.client.call('getArrangement');
    expect(got.projects.map((p) => p.id).sort()).toEqual([...projects].sort());
    expect(got.projects.filter((p) => p.groupId === g).map((p) => p.id)).toEqual(got.groups[0].projects);
  });

  it('answers 404 for a deleted project', async () => {
    const {
      person,
      projects: [a],
    } = await builder(1);
    const slug = (await person.client.call('getProject', { params: { projectId: a } })).slug;
    await person.client.call('deleteProject', { params: { projectId: a }, body: { confirm: slug } });
    expect((await refusal(person.client.call('arrangeProjects', { body: { ungrouped: [a], groups: [] } }))).status).toBe(404);
  });

  it('takes at most 500 ungrouped, 30 groups and 100 ids a group (400 invalid beyond)', async () => {
    const { token } = await platform.person();
    const ids = (n: number) => Array.from({ length: n }, () => randomUUID());
    for (const json of [
      { ungrouped: ids(501), groups: [] },
      { ungrouped: [], groups: ids(31).map((id) => ({ id, projects: [] })) },
      { ungrouped: [], groups: [{ id: randomUUID(), projects: ids(101) }] },
      { ungrouped: [], groups: [{ projects: [] }] },
      { groups: [] },
    ]) {
      const res = await platform.fetch('/api/arrangement', { method: 'POST', token, json });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid');
    }
    // At the limits, unknown ids are simply not found.
    const res = await platform.fetch('/api/arrangement', { method: 'POST', token, json: { ungrouped: ids(500), groups: [] } });
    expect(res.status).toBe(404);
  });
});

describe('groups', () => {
  it('createGroup adds each group last, with no projects', async () => {
    const { person } = await builder(0);
    await person.client.call('createGroup', { body: { name: 'First' } });
    const got = await person.client.call('createGroup', { body: { name: '  Second  ' } });
    expect(got.groups.map((g) => [g.name, g.projects])).toEqual([
      ['First', []],
      ['Second', []],
    ]);
  });

  it('createGroup refuses a 31st group with 422 groups', async () => {
    const { person } = await builder(0);
    for (let i = 0; i < 30; i++) await person.client.call('createGroup', { body: { name: `Group ${i}` } });
    expect(await refusal(person.client.call('createGroup', { body: { name: 'One too many' } }))).toMatchObject({
      status: 422,
      body: { error: 'refused: groups', reason: 'groups' },
    });
    expect((await person.client.call('getArrangement')).groups).toHaveLength(30);
  });

  it('makes 30 groups and no more when asked at once', async () => {
    const { person } = await builder(0);
    const results = await Promise.allSettled(
      Array.from({ length: 34 }, (_, i) => person.client.call('createGroup', { body: { name: `G${i}` } })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(30);
    expect((await person.client.call('getArrangement')).groups).toHaveLength(30);
  });

  it('names a group with 1 to 40 characters (400 invalid otherwise)', async () => {
    const person = await platform.person();
    const { token } = person;
    const g = await groupId(person, 'Named');
    for (const name of ['', '   ', 'x'.repeat(41)]) {
      expect((await platform.fetch('/api/groups', { method: 'POST', token, json: { name } })).status).toBe(400);
      expect((await platform.fetch(`/api/groups/${g}`, { method: 'POST', token, json: { name } })).status).toBe(400);
    }
    expect((await person.client.call('createGroup', { body: { name: 'x'.repeat(40) } })).groups).toHaveLength(2);
  });

  it('renameGroup renames in place; a foreign or missing group is 404', async () => {
    const {
      person,
      projects: [a],
    } = await builder(1);
    const g = await groupId(person, 'Old');
    await groupId(person, 'After');
    await person.client.call('arrangeProjects', { body: { ungrouped: [], groups: [{ id: g, projects: [a] }] } });
    const got = await person.client.call('renameGroup', { params: { groupId: g }, body: { name: 'New' } });
    expect(got.groups.map((x) => [x.name, x.projects])).toEqual([
      ['New', [a]],
      ['After', []],
    ]);
    const other = await builder(0);
    for (const id of [randomUUID(), 'nope']) {
      expect((await refusal(other.person.client.call('renameGroup', { params: { groupId: id }, body: { name: 'Mine' } }))).status).toBe(
        404,
      );
    }
    expect((await refusal(other.person.client.call('renameGroup', { params: { groupId: g }, body: { name: 'Mine' } }))).status).toBe(404);
    expect((await person.client.call('getArrangement')).groups[0].name).toBe('New');
  });

  it('deleteGroup sends its projects, in order, to the end of the ungrouped; others keep their places', async () => {
    const {
      person,
      projects: [a, b, c, d, e],
    } = await builder(5);
    const g = await groupId(person, 'Doomed');
    const h = await groupId(person, 'Stays');
    await person.client.call('arrangeProjects', {
      body: {
        ungrouped: [a, b],
        groups: [
          { id: g, projects: [d, c] },
          { id: h, projects: [e] },
        ],
      },
    });
    const got = await person.client.call('deleteGroup', { params: { groupId: g } });
    expect(got.groups).toEqual([{ id: h, name: 'Stays', projects: [e] }]);
    expect(got.projects.map((p) => [p.id, p.groupId])).toEqual([
      [a, null],
      [b, null],
      [d, null],
      [c, null],
      [e, h],
    ]);
    expect(await person.client.call('getArrangement')).toEqual(got);
    // The group is gone: a second delete, a rename or an arrangement naming it is 404.
    expect((await refusal(person.client.call('deleteGroup', { params: { groupId: g } }))).status).toBe(404);
    expect((await refusal(person.client.call('renameGroup', { params: { groupId: g }, body: { name: 'Back' } }))).status).toBe(404);
    expect(
      (await refusal(person.client.call('arrangeProjects', { body: { ungrouped: [], groups: [{ id: g, projects: [] }] } }))).status,
    ).toBe(404);
  });

  it("deleteGroup answers 404 for another workspace's group and leaves it be", async () => {
    const owner = await builder(1);
    const g = await groupId(owner.person, 'Kept');
    await owner.person.client.call('arrangeProjects', { body: { ungrouped: [], groups: [{ id: g, projects: owner.projects }] } });
    const other = await builder(0);
    expect((await refusal(other.person.client.call('deleteGroup', { params: { groupId: g } }))).status).toBe(404);
    expect((await refusal(other.person.client.call('deleteGroup', { params: { groupId: 'nope' } }))).status).toBe(404);
    expect((await owner.person.client.call('getArrangement')).groups).toEqual([{ id: g, name: 'Kept', projects: owner.projects }]);
  });
});

describe('scoped by the active workspace', () => {
  it("shows and arranges the team's projects when the team is active, and the own ones after switching back", async () => {
    const {
      person,
      projects: [mine],
    } = await builder(1);
    const own = (await person.client.call('whoami')).workspace.id as string;
    const team = await person.client.call('createTeam', { body: { name: `Team ${uniqueSlug('t')}` } });
    await platform.deps.sql`update workspaces set plan = 'team' where id = ${team.id}`;
    const theirs = (await person.client.call('createProject', { body: { slug: uniqueSlug('team'), name: 'Team project' } })).id;
    const g = await groupId(person, 'Team group');
    expect((await person.client.call('getArrangement')).projects.map((p) => p.id)).toEqual([theirs]);
    expect((await refusal(person.client.call('arrangeProjects', { body: { ungrouped: [mine], groups: [] } }))).status).toBe(404);
    await person.client.call('activateWorkspace', { params: { workspaceId: own } });
    const back = await person.client.call('getArrangement');
    expect(back).toMatchObject({ groups: [], projects: [{ id: mine }] });
    expect((await refusal(person.client.call('deleteGroup', { params: { groupId: g } }))).status).toBe(404);
  });
});
