import { bytes, shortTime, table } from '../ui/table.js';
import { projectListCommand } from './list-command.js';

export const buildsLsCommand = () =>
  projectListCommand('ls', {
    description: "a project's builds, newest first; the live one is marked",
    doing: 'listing builds',
    load: (client, project) => client.call('listBuilds', { params: { projectId: project.id } }),
    none: (project) => `No builds in ${project.slug} yet.`,
    print: (builds) =>
      table(
        ['ID', 'KIND', 'SIZE', 'LIVE', 'CREATED', 'NOTE'],
        builds.map((b) => [b.id, b.kind, bytes(b.sizeBytes), b.live ? 'live' : '', shortTime(b.createdAt), b.note ?? '']),
      ),
  });
