// What a build is made of, as one hash: every file under the given paths (relative to the repo),
// by path and content, in a stable order. A build (the web app, the room's scripts) stamps its
// output with it and is redone only when the hash moves.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from './lib.mjs';

function* files(entry) {
  const full = path.join(repoRoot, entry);
  if (!existsSync(full)) return;
  if (statSync(full).isFile()) return yield full;
  for (const name of readdirSync(full).sort()) yield* files(path.join(entry, name));
}

/** The hash of `sources`, leaving out the files `skip` names (tests beside the code, say). */
export function hashOfSources(sources, skip = () => false) {
  const hash = createHash('sha256');
  for (const entry of sources) {
    for (const file of files(entry)) {
      if (skip(file)) continue;
      hash.update(path.relative(repoRoot, file)).update('\0').update(readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}
