import { Command } from 'commander';
import { DEFAULT_API } from './config/api-url.js';
import { buildsLsCommand } from './commands/builds-ls.command.js';
import { logsCommand } from './commands/logs.command.js';
import { deployCommand } from './commands/deploy.command.js';
import { initCommand } from './commands/init.command.js';
import { linksCreateCommand } from './commands/links-create.command.js';
import { linksLsCommand } from './commands/links-ls.command.js';
import { linksRevealCommand } from './commands/links-reveal.command.js';
import { linksRevokeCommand } from './commands/links-revoke.command.js';
import { linksUpdateCommand } from './commands/links-update.command.js';
import { loginCommand } from './commands/login.command.js';
import { logoutCommand } from './commands/logout.command.js';
import { projectsLsCommand } from './commands/projects-ls.command.js';
import { rollbackCommand } from './commands/rollback.command.js';
import { validateCommand } from './commands/validate.command.js';
import { whoamiCommand } from './commands/whoami.command.js';
import { workspaceLsCommand } from './commands/workspace-ls.command.js';
import { workspaceUseCommand } from './commands/workspace-use.command.js';
import { version } from './version.js';

/** The `pitch` program: global options, then one command per file under commands/. */
export function buildProgram(): Command {
  const program = new Command('pitch')
    .description('Deploy demo rooms and send viewers private links.')
    .version(version)
    .option('--api <url>', `the platform's address (default: PITCH_API, else ${DEFAULT_API})`)
    .option('--token <token>', 'a bearer token (default: PP_TOKEN, else the one `pitch login` kept)')
    .option('--verbose', 'more detail on progress and refusals');

  const links = new Command('links').description("a project's private links");
  const projects = new Command('projects').description("the workspace's projects");
  const builds = new Command('builds').description("a project's builds");
  const workspace = new Command('workspace').description('your workspaces: yours and your teams');
  links.addCommand(linksCreateCommand()).addCommand(linksLsCommand()).addCommand(linksRevokeCommand()).addCommand(linksRevealCommand());
  links.addCommand(linksUpdateCommand());
  projects.addCommand(projectsLsCommand());
  builds.addCommand(buildsLsCommand());
  workspace.addCommand(workspaceLsCommand()).addCommand(workspaceUseCommand());

  for (const command of [
    loginCommand(),
    logoutCommand(),
    whoamiCommand(),
    initCommand(),
    validateCommand(),
    deployCommand(),
    links,
    projects,
    builds,
    workspace,
    rollbackCommand(),
    logsCommand(),
  ]) {
    program.addCommand(command);
  }
  return program;
}
