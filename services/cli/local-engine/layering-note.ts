import { bytes } from '../ui/table.js';
import type { BuildContext } from './build-context.js';

// A `COPY . .` that carries node_modules puts the dependencies in the same layer as the code: each
// change to one line of the code makes that whole layer again, and the deploy sends it (issue 48:
// 96 MB for a one-line change). `pitch validate` and `pitch deploy` say so, with the fix.

/** A COPY or ADD of the whole context (`.` or `./` as a source), with its line number (1-based). */
function copyAllLine(dockerfile: string): number | null {
  const lines = dockerfile.split('\n');
  for (const [index, line] of lines.entries()) {
    const words = line.trim().split(/\s+/);
    if (!/^(COPY|ADD)$/i.test(words[0] ?? '')) continue;
    const sources = words.slice(1, -1).filter((word) => !word.startsWith('--'));
    if (sources.some((source) => source === '.' || source === './')) return index + 1;
  }
  return null;
}

/** The note, or null: a whole-context COPY while the context holds node_modules. */
export function layeringNote(dockerfile: string, context: BuildContext): string | null {
  const line = copyAllLine(dockerfile);
  if (line === null) return null;
  const dependencies = context.entries
    .filter((entry) => entry.type === 'file' && (entry.path.startsWith('node_modules/') || entry.path.includes('/node_modules/')))
    .reduce((sum, entry) => sum + entry.size, 0);
  if (dependencies === 0) return null;
  return (
    `the Dockerfile's line ${line} copies the whole folder, node_modules (${bytes(dependencies)}) with the code: each change resends ${bytes(dependencies)}. ` +
    'Copy package*.json and node_modules in layers of their own before the code, then name the code to copy ' +
    '(`pitch init` writes such a Dockerfile), or add node_modules to .dockerignore when the build installs the dependencies'
  );
}
