import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testEnv } from '../../../test/support/services.js';
import { tailChange } from '../deploy-steps/tail-metadata.js';
import { readBuildContext } from './build-context.js';
import { buildImage } from './build-image.js';
import type { BuildRecipe } from './build-recipe.js';
import { splitDockerfile } from './dockerfile-tail.js';
import type { ConfigFields } from './tail-config.js';

// A changed metadata step after the last RUN (issue 48, item 1) is written into the config without
// the engine: the fields worked out equal those podman writes when it builds the same Dockerfile
// (Env, Cmd, Entrypoint, WorkingDir, User, ExposedPorts, Labels, StopSignal), starting from the
// live build podman made of the Dockerfile before the change. What cannot be worked out for sure
// is a reason, and the engine builds.

const docker = new Docker({ socketPath: testEnv().DOCKER_HOST.replace(/^unix:\/\//, '') });
const tags: string[] = [];
let dir: string;

const HEAD = 'FROM localhost/demo-node:24\nWORKDIR /app\nRUN ["node", "-e", "1"]\n';
const LIVE_TAIL = 'COPY a.txt ./\nENV MODE=demo\nLABEL stage=one\nCMD ["node", "server.js"]\n';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tail-config-'));
  await writeFile(join(dir, 'a.txt'), 'a\n');
});
afterAll(async () => {
  const removals = tags.map((tag) => docker.getImage(tag).remove());
  await Promise.allSettled([...removals, rm(dir, { recursive: true, force: true })]);
});

const FIELDS = ['Env', 'Cmd', 'Entrypoint', 'WorkingDir', 'User', 'ExposedPorts', 'Labels', 'StopSignal'] as const;

/** The engine's build of HEAD + tail: its config's modelled fields, empty ones as null. */
async function engineConfig(tail: string): Promise<ConfigFields> {
  await writeFile(join(dir, 'Dockerfile'), HEAD + tail);
  const tag = `localhost/tail-config-test:${tags.length}-${Date.now()}`;
  tags.push(tag);
  await buildImage(docker, await readBuildContext(dir), tag, () => {});
  return fieldsOf((await docker.getImage(tag).inspect()).Config as ConfigFields);
}

function fieldsOf(config: ConfigFields): ConfigFields {
  const empty = (v: unknown) => v == null || v === '' || (typeof v === 'object' && Object.keys(v as object).length === 0);
  return Object.fromEntries(FIELDS.map((field) => [field, empty(config[field]) ? null : config[field]]));
}

/** A recipe as buildRecipe records it: the tail's text starts where the head's last line ends. */
const recipe = (tail: string, withText = true): BuildRecipe => ({
  head: 'same',
  tail: createHash('sha256').update(`\n${tail}`).digest('hex'),
  tailText: withText ? `\n${tail}` : undefined,
  reads: [],
});
const baseConfig = async (reference: string) => ((await docker.getImage(reference).inspect()).Config as ConfigFields) ?? null;

/** The new tail's config as the in-process path writes it over the live one. */
async function laidConfig(live: ConfigFields, tail: string, liveTail = LIVE_TAIL) {
  const change = await tailChange(splitDockerfile(HEAD + tail), recipe(tail), recipe(liveTail), live, baseConfig);
  if ('reason' in change) return change;
  return fieldsOf({ ...live, ...change.fields });
}

it("writes each metadata step's fields as podman does: ENV, LABEL, EXPOSE, USER, ENTRYPOINT, CMD, STOPSIGNAL", async () => {
  const live = await engineConfig(LIVE_TAIL);
  const tails = [
    // Every field at once; ENV replaces a base variable (PATH) and is appended after the others, as buildah does.
    'COPY a.txt ./\nENV MODE=live PATH=/x:/usr/local/bin:/usr/bin:/bin B="two words"\nLABEL org.x=1 "y z"=2\nEXPOSE 8080 9090/udp\nUSER 1000:1000\nENTRYPOINT ["node"]\nCMD ["server.js"]\nSTOPSIGNAL SIGTERM\n',
    // An ENTRYPOINT with no CMD after it in the stage: the base's CMD is dropped.
    'COPY a.txt ./\nENTRYPOINT ["node", "server.js"]\n',
    // The live tail's ENV and LABEL removed: the base's Env and Labels again; a shell-form CMD.
    'COPY a.txt ./\nCMD node server.js\n',
    // Steps moved around the COPY: its line moves, its layer is the same step's.
    'ENV MODE=early\nCOPY a.txt ./\nUSER 1000\nCMD ["node", "server.js"]\n',
  ];
  for (const tail of tails) {
    const engine = await engineConfig(tail);
    expect(await laidConfig(live, tail), tail).toEqual(engine);
  }
}, 300_000);

it('says why a change it cannot honour goes to the engine', async () => {
  const live = (await docker.getImage(tags[0]).inspect()).Config as ConfigFields;
  const reason = async (tail: string, withText = true) =>
    tailChange(splitDockerfile(HEAD + tail), recipe(tail), recipe(LIVE_TAIL, withText), live, baseConfig);
  // Only a comment added: the live config and history stand (the same image, so "nothing changed").
  expect(await reason(LIVE_TAIL.replace('ENV', '# the mode\nENV'))).toEqual({
    liveTail: splitDockerfile(HEAD + LIVE_TAIL).tail,
    fields: null,
    changed: [],
  });
  expect(await reason('COPY a.txt ./\nUSER node\nCMD ["node", "server.js"]\n')).toEqual({
    reason: 'the USER on line 5 names a user, which the engine resolves; a numeric id is laid without it',
  });
  expect(await reason('COPY a.txt ./\nENV PATH=/x:$PATH\nCMD ["node", "server.js"]\n')).toEqual({
    reason: 'the ENV on line 5 has a variable, an escape or a continuation, which the engine expands',
  });
  expect(await reason('COPY a.txt /srv/\nCMD ["node", "server.js"]\n')).toEqual({
    reason: 'the steps after its last RUN changed beyond their metadata (a COPY or WORKDIR added, removed or changed)',
  });
  expect(await reason('COPY a.txt ./\nEXPOSE 8000-8002\nCMD ["node", "server.js"]\n')).toEqual({
    reason: 'the EXPOSE on line 5 names 8000-8002, not one port',
  });
  expect(await reason('COPY a.txt ./\nCMD ["node", "other.js"]\n', false)).toMatchObject({
    reason: expect.stringMatching(/record of the live build has not their text/),
  });
  // A live config the reading does not give (an image someone else built) is not trusted with the new one.
  expect(
    await tailChange(
      splitDockerfile(`${HEAD}COPY a.txt ./\nCMD ["node"]\n`),
      recipe('COPY a.txt ./\nCMD ["node"]\n'),
      recipe(LIVE_TAIL),
      { ...live, Env: ['X=1'] },
      baseConfig,
    ),
  ).toMatchObject({
    reason: expect.stringMatching(/does not give the live image's .*Env/),
  });
}, 120_000);
