import { expect, it } from 'vitest';
import type Docker from 'dockerode';
import type { BuildContext } from './build-context.js';
import { buildRecipe, globPaths, recipeChange, type BuildRecipe } from './build-recipe.js';
import { NoTail, splitDockerfile } from './dockerfile-tail.js';

// Where the Dockerfile splits for the in-process image (issue 48, item 1), and the one clause a
// deploy prints when the engine must build instead.

const NODE = `FROM localhost/demo-node:24
WORKDIR /app
COPY package*.json ./
COPY node_modules ./node_modules
RUN ["node", "-e", "1"]
COPY server.js lib ./
ENV MODE=demo
CMD ["node", "server.js"]
`;

it('splits after the last RUN: the head and what it reads, the tail COPY and metadata steps', () => {
  const split = splitDockerfile(NODE);
  expect(split.head.split('\n').at(-1)).toBe('RUN ["node", "-e", "1"]');
  expect(split.reads).toEqual([
    { line: 3, sources: ['*'] }, // a wildcard counts as reading every file
    { line: 4, sources: ['node_modules'] },
  ]);
  expect(split.headWorkdir).toBe('/app');
  expect(split.tail).toEqual([
    { kind: 'copy', copy: { line: 6, sources: ['server.js', 'lib'], dest: './' } },
    { kind: 'metadata', line: 7, text: 'ENV MODE=demo' },
    { kind: 'metadata', line: 8, text: 'CMD ["node", "server.js"]' },
  ]);
});

it('says why a tail only the engine can make is not laid in-process', () => {
  const tail = (line: string) => () => splitDockerfile(`FROM localhost/demo-node:24\nWORKDIR /app\n${line}\nCMD ["node", "server.js"]\n`);
  expect(tail('COPY --chown=1000:1000 server.js .')).toThrow(new NoTail('the COPY on line 3 has --chown, which only the engine applies'));
  expect(tail('COPY $SRC .')).toThrow(/names \$SRC, not a plain path/);
  expect(tail('COPY lib/[ab].js .')).toThrow(/names lib\/\[ab\]\.js, not a plain path/);
  expect(tail('COPY *.js .')).not.toThrow();
  expect(tail('COPY ["server.js", "."]')).toThrow(/JSON or heredoc form/);
  expect(tail('WORKDIR lib')).toThrow(/WORKDIR on line 3 is not a plain absolute path/);
  expect(() => splitDockerfile('FROM localhost/demo-node:24\nADD https://example.com/x.tgz /x\n')).toThrow(/ADDs from a URL/);
});

it('names the part of the recipe that changed', () => {
  const recorded: BuildRecipe = { head: 'h', tail: 't', reads: [{ line: 3, files: 'a' }] };
  expect(recipeChange(recorded, recorded)).toBeNull();
  expect(recipeChange(recorded, { ...recorded, head: 'h2' })).toBe('the Dockerfile up to its last RUN, or its base image, changed');
  expect(recipeChange(recorded, { ...recorded, reads: [{ line: 3, files: 'b' }] })).toBe(
    'files an earlier step reads changed (the COPY or ADD on line 3)',
  );
  // A changed tail is the in-process build's to judge (only its metadata may have changed).
  expect(recipeChange(recorded, { ...recorded, tail: 't2' })).toBeNull();
});

it('reads flags the parser keeps apart: a head COPY --from reads no file here, a RUN --mount reads them all', () => {
  const split = splitDockerfile(
    'FROM localhost/demo-node:24 AS build\nFROM localhost/demo-node:24\nCOPY --from=build /app/dist ./dist\nRUN --mount=type=bind,target=/src ["node", "-e", "1"]\nCOPY server.js /app/\n',
  );
  expect(split.reads).toEqual([{ line: 4, sources: ['*'] }]);
  expect(() => splitDockerfile('FROM localhost/demo-node:24\nCOPY --from=build /x /app/\n')).toThrow(/has --from/);
});

it("records each tail COPY's files apart, so a code change leaves node_modules' record, and so its layer, as it was", async () => {
  const dockerfile = `FROM localhost/demo-node:24
WORKDIR /app
RUN mkdir -p /app/data
COPY package*.json ./
COPY node_modules ./node_modules
COPY server.js ./
CMD ["node", "server.js"]
`;
  const file = (path: string) => ({ path, type: 'file' as const, mode: 0o644, size: 1 });
  const context: BuildContext = {
    dir: '/x',
    entries: [
      { path: 'Dockerfile', type: 'file', mode: 0o644, size: 1, ignored: true },
      file('README.md'),
      { path: 'node_modules', type: 'directory', mode: 0o755, size: 0 },
      file('node_modules/heavy.js'),
      file('package-lock.json'),
      file('package.json'),
      file('server.js'),
    ],
    bytes: 0,
    excludedBytes: 0,
  };
  expect(globPaths(context, 'package*.json')).toEqual(['package-lock.json', 'package.json']);
  expect(globPaths(context, '*')).toEqual(['README.md', 'node_modules', 'package-lock.json', 'package.json', 'server.js']);
  const noEngine = { getImage: () => ({ inspect: () => Promise.reject(new Error('none')) }) } as unknown as Docker;
  const recipeWith = async (contents: Record<string, string>) => {
    const made = await buildRecipe(noEngine, dockerfile, context, async (path) => contents[path.slice(3)] ?? 'same');
    if (!('recipe' in made)) throw new Error(made.reason);
    return made.recipe;
  };
  const before = await recipeWith({});
  const codeChanged = await recipeWith({ 'server.js': 'changed' });
  const lockChanged = await recipeWith({ 'package-lock.json': 'changed' });
  expect(before.copies?.map((copy) => copy.line)).toEqual([4, 5, 6]);
  expect(codeChanged.copies?.map((copy, i) => copy.files === before.copies![i].files)).toEqual([true, true, false]);
  expect(lockChanged.copies?.map((copy, i) => copy.files === before.copies![i].files)).toEqual([false, true, true]);
  expect(recipeChange(before, codeChanged)).toBeNull();
});
