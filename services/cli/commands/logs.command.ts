import { shortTime } from '../ui/table.js';
import { projectListCommand } from './list-command.js';

export const logsCommand = () =>
  projectListCommand('logs', {
    description: "the latest times a copy of the project's container demo exited on its own, with its exit code and last output",
    doing: 'reading exits',
    load: (client, project) => client.call('listExits', { params: { projectId: project.id } }),
    none: (project) => `No copy of ${project.slug} has exited on its own.`,
    // Oldest first on screen, so the newest ends next to the prompt.
    print: (exits) =>
      [...exits]
        .reverse()
        .map((e) => {
          const what = e.when === 'crash' ? 'stopped after it was ready' : 'exited while starting';
          const code = e.oom ? 'out of memory' : `exit code ${e.exitCode ?? 'unknown'}`;
          const output = e.output
            ? e.output
                .split('\n')
                .map((line) => `  ${line}`)
                .join('\n')
            : '  (no output)';
          return `${shortTime(e.at)}  copy ${e.copyId} of build ${e.buildId}: ${what}, ${code}\n${output}`;
        })
        .join('\n\n'),
  });
