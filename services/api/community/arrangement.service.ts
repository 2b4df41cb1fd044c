import type { Db, Sql, Tx } from '../../core/infra/db.js';
import { invalid, notFound, refused } from '../../core/rules/errors.js';
import { isUuid } from '../../core/infra/ids.js';
import {
  countGroups,
  deleteGroupRow,
  groupsOf,
  insertGroup,
  lockArrangement,
  placedProjectsOf,
  renameGroupRow,
  writeArrangement,
  type PlacedProject,
} from '../../data/arrangement.sql.js';

// The projects' arrangement (spec 4.5): ungrouped projects first, then each group in order.
// Every change reads the whole arrangement under the workspace's lock, computes the new one and
// writes it whole, so it is all or nothing.

/** Groups per workspace (spec 8). */
export const maxGroups = 30;

interface Layout {
  ungrouped: string[];
  groups: { id: string; name: string; projects: string[] }[];
}

async function readLayout(db: Db, workspaceId: string) {
  const groups = await groupsOf(db, workspaceId);
  const projects = new Map<string, PlacedProject>();
  const layout: Layout = { ungrouped: [], groups: groups.map((g) => ({ id: g.id, name: g.name, projects: [] })) };
  const byGroup = new Map(layout.groups.map((g) => [g.id, g.projects]));
  for (const p of await placedProjectsOf(db, workspaceId)) {
    projects.set(p.id, p);
    ((p.groupId && byGroup.get(p.groupId)) || layout.ungrouped).push(p.id);
  }
  return { layout, projects };
}

/**
 * The contract's Arrangement. Each project carries its group and its community standing (its
 * card's status; a draft or no card is `unlisted`).
 */
function arrangementView({ layout, projects }: Awaited<ReturnType<typeof readLayout>>) {
  const lists = [
    { groupId: null as string | null, ids: layout.ungrouped },
    ...layout.groups.map((g) => ({ groupId: g.id as string | null, ids: g.projects })),
  ];
  return {
    groups: layout.groups.map((g) => ({ id: g.id, name: g.name, projects: g.projects })),
    projects: lists.flatMap(({ groupId, ids }) =>
      ids.map((id) => {
        const p = projects.get(id)!;
        return { id, slug: p.slug, name: p.name, groupId, standing: p.standing };
      }),
    ),
  };
}

/** Groups and places are read from one snapshot, so a change between the two reads cannot tear them. */
export const getArrangement = (sql: Sql, workspaceId: string) =>
  sql.begin('isolation level repeatable read read only', async (tx) => arrangementView(await readLayout(tx, workspaceId))) as Promise<
    ReturnType<typeof arrangementView>
  >;

/** Runs `change` on the arrangement under the workspace's lock; answers the arrangement after it. */
function changing(sql: Sql, workspaceId: string, change: (tx: Tx, current: Awaited<ReturnType<typeof readLayout>>) => Promise<void>) {
  return sql.begin(async (tx) => {
    await lockArrangement(tx, workspaceId);
    await change(tx, await readLayout(tx, workspaceId));
    return arrangementView(await readLayout(tx, workspaceId));
  }) as Promise<ReturnType<typeof arrangementView>>;
}

function refuseRepeats(ids: string[], what: string) {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw refused(422, 'order', `${what} ${id.slice(0, 64)} is named more than once`);
    seen.add(id);
  }
}

/**
 * Places the given projects: each list starts with what was given, in that order, and what was
 * left out keeps its order after it; the groups given come first in that order, the rest after.
 */
export function arrangeProjects(
  sql: Sql,
  workspaceId: string,
  input: { ungrouped: string[]; groups: { id: string; projects: string[] }[] },
) {
  const given = [...input.ungrouped, ...input.groups.flatMap((g) => g.projects)];
  refuseRepeats(given, 'project');
  refuseRepeats(
    input.groups.map((g) => g.id),
    'group',
  );
  return changing(sql, workspaceId, async (tx, { layout, projects }) => {
    const current = new Map(layout.groups.map((g) => [g.id, g]));
    // A foreign id looks missing; nothing is written before every id is known.
    if (given.some((id) => !projects.has(id)) || input.groups.some((g) => !current.has(g.id))) throw notFound();
    const moved = new Set(given);
    const leftOut = (ids: string[]) => ids.filter((id) => !moved.has(id));
    const named = new Set(input.groups.map((g) => g.id));
    await writeArrangement(tx, workspaceId, {
      ungrouped: [...input.ungrouped, ...leftOut(layout.ungrouped)],
      groups: [
        ...input.groups.map((g) => ({ id: g.id, projects: [...g.projects, ...leftOut(current.get(g.id)!.projects)] })),
        ...layout.groups.filter((g) => !named.has(g.id)).map((g) => ({ id: g.id, projects: leftOut(g.projects) })),
      ],
    });
  });
}

/** A group's name without the spaces around it; one of only spaces is empty (400, as a length). */
function groupName(name: string) {
  const trimmed = name.trim();
  if (!trimmed) throw invalid([{ path: 'name', message: 'must not be empty' }]);
  return trimmed;
}

export function createGroup(sql: Sql, workspaceId: string, name: string) {
  const named = groupName(name);
  return changing(sql, workspaceId, async (tx) => {
    if ((await countGroups(tx, workspaceId)) >= maxGroups) throw refused(422, 'groups', `a workspace has at most ${maxGroups} groups`);
    await insertGroup(tx, workspaceId, named);
  });
}

export async function renameGroup(sql: Sql, workspaceId: string, groupId: string, name: string) {
  const named = groupName(name);
  if (!isUuid(groupId) || !(await renameGroupRow(sql, workspaceId, groupId, named))) throw notFound();
  return getArrangement(sql, workspaceId);
}

/** Deletes the group; its projects go, in their order, to the end of the ungrouped. */
export function deleteGroup(sql: Sql, workspaceId: string, groupId: string) {
  if (!isUuid(groupId)) throw notFound();
  return changing(sql, workspaceId, async (tx, { layout }) => {
    const gone = layout.groups.find((g) => g.id === groupId);
    if (!gone) throw notFound();
    await writeArrangement(tx, workspaceId, {
      ungrouped: [...layout.ungrouped, ...gone.projects],
      groups: layout.groups.filter((g) => g !== gone),
    });
    await deleteGroupRow(tx, workspaceId, groupId);
  });
}
