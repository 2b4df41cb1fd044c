import { expect, it } from 'vitest';
import { recipeChange, type BuildRecipe } from './build-recipe.js';
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
    { kind: 'metadata', line: 7 },
    { kind: 'metadata', line: 8 },
  ]);
});

it('says why a tail only the engine can make is not laid in-process', () => {
  const tail = (line: string) => () => splitDockerfile(`FROM localhost/demo-node:24\nWORKDIR /app\n${line}\nCMD ["node", "server.js"]\n`);
  expect(tail('COPY --chown=1000:1000 server.js .')).toThrow(new NoTail('the COPY on line 3 has --chown, which only the engine applies'));
  expect(tail('COPY *.js .')).toThrow(/names \*\.js, not a plain path/);
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
  expect(recipeChange(recorded, { ...recorded, tail: 't2' })).toMatch(/^the steps after its last RUN changed/);
});

it('reads flags the parser keeps apart: a head COPY --from reads no file here, a RUN --mount reads them all', () => {
  const split = splitDockerfile(
    'FROM localhost/demo-node:24 AS build\nFROM localhost/demo-node:24\nCOPY --from=build /app/dist ./dist\nRUN --mount=type=bind,target=/src ["node", "-e", "1"]\nCOPY server.js /app/\n',
  );
  expect(split.reads).toEqual([{ line: 4, sources: ['*'] }]);
  expect(() => splitDockerfile('FROM localhost/demo-node:24\nCOPY --from=build /x /app/\n')).toThrow(/has --from/);
});
