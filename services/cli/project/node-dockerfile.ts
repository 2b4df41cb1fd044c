import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// The Dockerfile and .dockerignore `pitch init` writes for a Node app (issue 48, item 2): the
// dependencies in layers of their own, before the code, so that a change to the code makes one
// small layer and a redeploy sends only that. A build has no network (docs/cli.md), so
// node_modules comes from the folder: it cannot be in .dockerignore, and the code is copied by
// name rather than by `COPY . .`, which would copy node_modules again with it.

/** Top-level names that are not the app's code: the dependencies, the tool's and the engine's files, what .dockerignore leaves out. */
const NOT_CODE = new Set(['node_modules', 'package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'Dockerfile', 'pitch.json']);

export const NODE_DOCKERIGNORE = `# Never sent to the engine (pitch reads this file before every build).
.git
.env
.env.*
*.log
.DS_Store
coverage
.cache
# node_modules is not listed: a build has no network, so the Dockerfile copies it from here.
`;

/** The start file: package.json's \`main\`, else server.js or index.js when present, else server.js. */
async function startFile(dir: string, names: string[]): Promise<string> {
  const main = await readFile(join(dir, 'package.json'), 'utf8').then(
    (text) => (JSON.parse(text) as { main?: unknown }).main,
    () => undefined,
  );
  if (typeof main === 'string' && main) return main.replace(/^\.\//, '');
  return names.find((name) => name === 'server.js' || name === 'index.js') ?? 'server.js';
}

/** The Dockerfile for the Node app in `dir`: package*.json, then node_modules, then the code by name. */
export async function nodeDockerfile(dir: string): Promise<string> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name));
  const code = entries.filter((entry) => !NOT_CODE.has(entry.name) && !entry.name.startsWith('.'));
  const files = code.filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
  const folders = code.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  const start = await startFile(dir, files);
  if (files.length === 0 && folders.length === 0) files.push(start);
  const hasModules = entries.some((entry) => entry.name === 'node_modules' && entry.isDirectory());
  return [
    '# The platform’s offline base image: Node 24, a busybox shell, WORKDIR /app.',
    'FROM localhost/demo-node:24',
    'WORKDIR /app',
    '# The dependencies first, each in a layer of its own: a change to the code leaves them as they',
    '# are, so a redeploy sends only the code’s layer. A build has no network: run `npm install`',
    '# here before `pitch deploy`.',
    'COPY package*.json ./',
    ...(hasModules ? ['COPY node_modules ./node_modules'] : ['# COPY node_modules ./node_modules   (once `npm install` has made it)']),
    '# The code last, by name (`COPY . .` would copy node_modules again, with the code).',
    ...(files.length ? [`COPY ${files.join(' ')} ./`] : []),
    ...folders.map((folder) => `COPY ${folder} ./${folder}`),
    `CMD ["node", ${JSON.stringify(start)}]`,
    '',
  ].join('\n');
}
