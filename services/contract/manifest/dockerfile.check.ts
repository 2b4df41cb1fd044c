import { effectiveCmd, readDockerfile, rootImage, type DockerStage, type DockerWorkdir } from './dockerfile.parse.js';
import type { FolderProblem } from './manifest.problem.js';
import type { ManifestNote } from './manifest.notes.js';

// Rule 11 of spec 2.1 and the Dockerfile's advisory notes. The spec's notes repeat two rule-11
// items (last stage not in /app, no CMD); each finding is reported once: as a problem when the
// Dockerfile plainly breaks rule 11, as a note when it cannot be read well enough to tell.

export interface DockerfileCheck {
  problems: FolderProblem[];
  notes: ManifestNote[];
}

const PATH = 'Dockerfile';

// Commands that install or download: a demo container has no internet, so they fail at start.
// Each must stand where a command starts (line start, after a separator or a path).
const AT_COMMAND = String.raw`(?:^|[\s;&|(/])`;
const END = String.raw`(?=$|[\s;&|)])`;
// Options before the subcommand, each perhaps with a value: `npm --prefix /app install`.
const OPTIONS = String.raw`(?:\s+-\S+(?:\s+[^-\s]\S*)?)*`;
const FETCHING = [
  String.raw`npm${OPTIONS}\s+(?:install|i|ci|add|update)`,
  String.raw`yarn${OPTIONS}\s+(?:add|install|dlx)`,
  String.raw`pnpm${OPTIONS}\s+(?:install|i|add|dlx|update)`,
  String.raw`bun${OPTIONS}\s+(?:install|i|add)`,
  String.raw`pip3?${OPTIONS}\s+install`,
  String.raw`apt(?:-get)?${OPTIONS}\s+(?:install|update)`,
  String.raw`apk${OPTIONS}\s+(?:add|update)`,
  String.raw`(?:yum|dnf|microdnf)${OPTIONS}\s+install`,
  String.raw`(?:gem|cargo)\s+install`,
  String.raw`go\s+(?:get|install)`,
  String.raw`git\s+(?:clone|fetch|pull)`,
  String.raw`(?:curl|wget)`,
].map((command) => new RegExp(AT_COMMAND + `(${command})` + END));

/** The install or download a command runs, as written, or null. */
export function fetchingCommand(command: string): string | null {
  for (const pattern of FETCHING) {
    const match = pattern.exec(command);
    if (match) return match[1];
  }
  return null;
}

/**
 * Whether an image reference looks like the Node 24 runtime. A heuristic on the name alone
 * (no registry is asked): the image's own name (the last path segment) must contain `node`,
 * and either its tag's major version is 24 (`node:24`, `node:24.3-alpine`, `v24`), its tag is
 * Node 24's release name `krypton`, or the name itself carries 24 as a whole number
 * (`node24`, `pitch-node-24`, `distroless/nodejs24-debian12`). `node`, `node:lts` and
 * `node:latest` do not count: they move.
 */
export function looksLikeNode24(image: string): boolean {
  const ref = image.toLowerCase().split('@')[0];
  const slash = ref.lastIndexOf('/');
  const colon = ref.lastIndexOf(':');
  const repository = colon > slash ? ref.slice(0, colon) : ref;
  const tag = colon > slash ? ref.slice(colon + 1) : '';
  const name = repository.slice(repository.lastIndexOf('/') + 1);
  if (!name.includes('node')) return false;
  return /(?:^|[^0-9])24(?![0-9])/.test(name) || /^v?24(?![0-9])/.test(tag) || /(?:^|[-_.])krypton/.test(tag);
}

/** The WORKDIR that last set a stage's working directory, looking through its base stages. */
function lastWorkdir(stages: DockerStage[], stage: DockerStage): DockerWorkdir | undefined {
  const own = stage.workdirs.at(-1);
  if (own || stage.parent === null) return own;
  return lastWorkdir(stages, stages[stage.parent]);
}

function checkWorkdir(stages: DockerStage[], last: DockerStage, out: DockerfileCheck): void {
  if (last.workdir === '/app') return;
  const setBy = lastWorkdir(stages, last);
  if (last.workdir === undefined || setBy === undefined) {
    out.problems.push({
      code: 'workdir-not-app',
      path: PATH,
      message: `the last stage (line ${last.line}) never sets its WORKDIR; it must set WORKDIR /app`,
    });
  } else if (last.workdir === null) {
    out.notes.push({
      code: 'workdir-not-app',
      message: `The WORKDIR on Dockerfile line ${setBy.line} (${setBy.raw}) uses a variable with no value here, so the last stage may not be in /app.`,
    });
  } else {
    out.problems.push({
      code: 'workdir-not-app',
      path: PATH,
      message: `the last stage works in ${last.workdir} (WORKDIR on line ${setBy.line}); it must set WORKDIR /app`,
    });
  }
}

function checkCmd(stages: DockerStage[], last: DockerStage, out: DockerfileCheck): void {
  const cmd = effectiveCmd(stages, last);
  if (!cmd) {
    const why = last.setsEntrypoint ? ' (its ENTRYPOINT resets an inherited one)' : '';
    out.problems.push({
      code: 'cmd-missing',
      path: PATH,
      message: `the last stage (line ${last.line}) has no CMD${why}; it must have one`,
    });
    return;
  }
  const fetching = fetchingCommand(cmd.text);
  if (fetching) {
    out.notes.push({
      code: 'cmd-fetches-packages',
      message: `The CMD on Dockerfile line ${cmd.line} runs "${fetching.trim()}", but a demo container has no internet: install while building the image instead.`,
    });
  }
}

function checkRuntime(stages: DockerStage[], last: DockerStage, out: DockerfileCheck): void {
  const image = rootImage(stages, last);
  if (image === null) {
    out.notes.push({
      code: 'runtime-not-node-24',
      message:
        "The last stage's base image is named by a build argument with no default, so it could not be told whether it runs on Node 24.",
    });
  } else if (!looksLikeNode24(image)) {
    out.notes.push({
      code: 'runtime-not-node-24',
      message: `The last stage is built on ${image}, which does not look like the Node 24 runtime (for example node:24 or node:24-alpine).`,
    });
  }
}

/** Rule 11 and the Dockerfile notes, from the Dockerfile's text. */
export function checkDockerfile(text: string): DockerfileCheck {
  const out: DockerfileCheck = { problems: [], notes: [] };
  const stages = readDockerfile(text);
  const last = stages.at(-1);
  if (!last) {
    // Possibly a custom frontend (`# syntax=`) that this reading cannot judge; the build will.
    out.notes.push({
      code: 'dockerfile-no-from',
      message: 'The Dockerfile has no FROM line, so its stages could not be checked; the image build will tell whether it works.',
    });
    return out;
  }
  checkWorkdir(stages, last, out);
  checkCmd(stages, last, out);
  checkRuntime(stages, last, out);
  return out;
}
