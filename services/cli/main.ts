import { CommanderError } from 'commander';
import { terminalSafe } from '@demo-rooms/contract';
import { interrupted } from './deploy-steps/on-interrupt.js';
import { buildProgram } from './program.js';
import { describeFailure } from './refusal.js';

/**
 * Runs `pitch` with the given arguments and returns the exit code: 0, or 1 for any refusal. Every
 * failure is printed as plain lines on stderr; a stack trace only for an unexpected one, and only
 * with --verbose.
 */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  const verbose = argv.includes('--verbose');
  // Commander's own messages (unknown option, missing argument) read like the tool's refusals.
  program.exitOverride();
  for (const command of [program, ...allSubcommands(program)]) {
    command.exitOverride().configureOutput({ outputError: (text, write) => write(`pitch: ${text.replace(/^error: /, '')}`) });
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 1;
    if (interrupted()) return 130;
    for (const line of describeFailure(err, verbose)) process.stderr.write(`${terminalSafe(line)}\n`);
    return 1;
  }
}

function allSubcommands(command: ReturnType<typeof buildProgram>): ReturnType<typeof buildProgram>[] {
  return command.commands.flatMap((sub) => [sub, ...allSubcommands(sub)]);
}
