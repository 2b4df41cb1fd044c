import type { Command } from 'commander';
import { CliContext } from '../context.js';
import type { GlobalOptions } from '../lines.js';

/** The context of a command from its own options and the program's global ones. */
export function contextOf(command: Command): CliContext {
  return new CliContext(command.optsWithGlobals<GlobalOptions>());
}
