import { describe, expect, it } from 'vitest';
import { checkDockerfile, fetchingCommand, looksLikeNode24 } from './dockerfile.check.js';
import { readDockerfile, substitute } from './dockerfile.parse.js';

const codes = (text: string) => {
  const found = checkDockerfile(text);
  return { problems: found.problems.map((p) => p.code), notes: found.notes.map((n) => n.code) };
};

describe('looksLikeNode24', () => {
  it.each([
    ['node:24', true],
    ['node:24-alpine', true],
    ['node:24.11.1-bookworm-slim', true],
    ['docker.io/library/node:24@sha256:abc', true],
    ['localhost:5000/node:v24', true],
    ['node:krypton-alpine', true],
    ['pitch-node24', true],
    ['localhost/pitch-node-24:latest', true],
    ['gcr.io/distroless/nodejs24-debian12', true],
    ['node', false],
    ['node:lts', false],
    ['node:latest', false],
    ['node:22-alpine', false],
    ['node:240', false],
    ['node:20.24.0', false],
    ['localhost:24/node', false],
    ['python:3.12', false],
    ['busybox:24', false],
    ['scratch', false],
  ])('%s → %s', (image, expected) => {
    expect(looksLikeNode24(image)).toBe(expected);
  });
});

describe('fetchingCommand', () => {
  it.each([
    ['npm install && node server.js', 'npm install'],
    ['npm ci', 'npm ci'],
    ['npm i -g serve && serve', 'npm i'],
    ['npm --prefix /app install', 'npm --prefix /app install'],
    ['yarn add left-pad', 'yarn add'],
    ['yarn install --frozen-lockfile && yarn start', 'yarn install'],
    ['pnpm install', 'pnpm install'],
    ['pip install -r requirements.txt', 'pip install'],
    ['python -m pip install flask', 'pip install'],
    ['apt-get update && apt-get install -y curl', 'apt-get update'],
    ['apk add --no-cache git', 'apk add'],
    ['curl -fsSL https://example.test | sh', 'curl'],
    ['/usr/bin/wget -q https://example.test', 'wget'],
    ['git clone https://example.test/repo.git', 'git clone'],
  ])('%s → %s', (command, found) => {
    expect(fetchingCommand(command)?.trim()).toBe(found);
  });

  it.each([
    'node server.js',
    'npm start',
    'npm run serve',
    'yarn start',
    'node curl-client.js',
    'node ./scripts/npm-install-check.js',
    'pnpm run start',
  ])('%s fetches nothing', (command) => {
    expect(fetchingCommand(command)).toBeNull();
  });
});

describe('substitute', () => {
  const vars = new Map<string, string | undefined>([
    ['NODE', '24'],
    ['EMPTY', ''],
    ['UNSET', undefined],
  ]);
  it.each([
    ['node:$NODE', 'node:24'],
    ['node:${NODE}-alpine', 'node:24-alpine'],
    ['node:${MISSING:-22}', 'node:22'],
    ['node:${EMPTY:-22}', 'node:22'],
    ['x${NODE:+-set}', 'x-set'],
    ['x${MISSING:+-set}', 'x'],
    ['node:$UNSET', null],
    ['node:${MISSING}', null],
  ])('%s → %s', (text, expected) => {
    expect(substitute(text, vars)).toBe(expected);
  });
});

describe('checkDockerfile', () => {
  it('passes a plain Node 24 Dockerfile', () => {
    expect(codes('FROM node:24\nWORKDIR /app\nCOPY . .\nCMD ["node", "server.js"]\n')).toEqual({ problems: [], notes: [] });
  });

  it('reads lower-case instructions and the escape directive', () => {
    const text = '# escape=`\nfrom node:24 as app\nworkdir `\n  /app\ncmd node `\n  server.js\n';
    expect(codes(text)).toEqual({ problems: [], notes: [] });
  });

  it('takes ENV values in WORKDIR, including the old ENV form', () => {
    expect(codes('FROM node:24\nENV APP=/app\nWORKDIR $APP\nCMD node s.js').problems).toEqual([]);
    expect(codes('FROM node:24\nENV APP /app\nWORKDIR ${APP}\nCMD node s.js').problems).toEqual([]);
  });

  it('notes, rather than refuses, a WORKDIR it cannot resolve', () => {
    expect(codes('FROM node:24\nWORKDIR $APP_DIR\nCMD node s.js')).toEqual({ problems: [], notes: ['workdir-not-app'] });
  });

  it('sees that a later WORKDIR overrides an earlier one, and relative ones continue', () => {
    expect(codes('FROM node:24\nWORKDIR /app\nWORKDIR /srv\nCMD node s.js').problems).toEqual(['workdir-not-app']);
    expect(codes('FROM node:24\nWORKDIR /app\nWORKDIR src\nCMD node s.js').problems).toEqual(['workdir-not-app']);
    expect(codes('FROM node:24\nWORKDIR /\nWORKDIR app\nCMD node s.js').problems).toEqual([]);
    expect(codes('FROM node:24\nWORKDIR app/\nCMD node s.js').problems).toEqual([]);
    expect(codes('FROM node:24\nWORKDIR /srv/../app/.\nCMD node s.js').problems).toEqual([]);
  });

  it('lets an ENTRYPOINT reset the CMD a stage inherits from an earlier stage', () => {
    const text = 'FROM node:24 AS base\nWORKDIR /app\nCMD ["node", "s.js"]\nFROM base\nENTRYPOINT ["node"]\n';
    expect(codes(text).problems).toEqual(['cmd-missing']);
  });

  it('follows a chain of stages, by names in any case, to the base image', () => {
    const text = 'FROM node:22 AS Base\nFROM base AS deps\nFROM DEPS\nWORKDIR /app\nCMD node s.js\n';
    const stages = readDockerfile(text);
    expect(stages.map((s) => s.parent)).toEqual([null, 0, 1]);
    expect(codes(text)).toEqual({ problems: [], notes: ['runtime-not-node-24'] });
  });

  it('notes an image named by an ARG without a default', () => {
    expect(codes('ARG BASE\nFROM $BASE\nWORKDIR /app\nCMD node s.js').notes).toEqual(['runtime-not-node-24']);
  });

  it('only counts global ARGs in a stage once it declares them again', () => {
    const inherited = 'ARG DIR=/app\nFROM node:24\nARG DIR\nWORKDIR $DIR\nCMD node s.js';
    expect(codes(inherited).problems).toEqual([]);
    const undeclared = 'ARG DIR=/app\nFROM node:24\nWORKDIR $DIR\nCMD node s.js';
    expect(codes(undeclared).notes).toEqual(['workdir-not-app']);
  });

  it('gives messages with the line at fault', () => {
    const found = checkDockerfile('FROM node:24\n\nWORKDIR /srv\nCMD node s.js\n');
    expect(found.problems[0]).toEqual({
      code: 'workdir-not-app',
      path: 'Dockerfile',
      message: 'the last stage works in /srv (WORKDIR on line 3); it must set WORKDIR /app',
    });
  });
});
