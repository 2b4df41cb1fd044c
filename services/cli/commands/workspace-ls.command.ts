import { table } from '../ui/table.js';
import { listCommand } from './list-command.js';

export const workspaceLsCommand = () =>
  listCommand('ls', {
    description: 'your workspaces, your own first; * marks the one commands act on',
    doing: 'listing workspaces',
    load: (client) => client.call('listWorkspaces'),
    print: (workspaces) =>
      table(
        ['', 'NAME', 'KIND', 'ROLE', 'ID'],
        workspaces.map((w) => [w.active ? '*' : '', w.name, w.kind, w.role, w.id]),
      ),
  });
