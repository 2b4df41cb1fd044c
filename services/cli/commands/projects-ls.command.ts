import { shortTime, table } from '../ui/table.js';
import { listCommand } from './list-command.js';

export const projectsLsCommand = () =>
  listCommand('ls', {
    description: "the workspace's projects, newest first",
    doing: 'listing projects',
    load: (client) => client.call('listProjects'),
    none: () => 'No projects yet: `pitch deploy` makes one.',
    print: (projects) =>
      table(
        ['SLUG', 'NAME', 'LIVE', 'CREATED', 'ROOM'],
        projects.map((p) => [p.slug, p.name, p.liveBuildId ? 'yes' : 'no', shortTime(p.createdAt), p.roomUrl]),
      ),
  });
