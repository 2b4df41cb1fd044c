import { describe, expect, it } from 'vitest';
import { agentAllowedBy, parsePolicy } from './capture-policy.js';

// A copy origin as the room serves one locally (non-default port), and one on https.
const local = 'http://shop--v0123456789ab.rooms.localhost:8080';
const secure = 'https://shop--v0123456789ab.rooms.example';

// [policies the page is served with, origin, whether the capture agent may run]
const table: [string[], string, boolean][] = [
  // No policy, or none about scripts.
  [[], local, true],
  [["img-src 'self'; style-src 'unsafe-inline'"], local, true],
  [['frame-ancestors http://localhost:8080'], local, true],
  [["upgrade-insecure-requests; object-src 'none'"], local, true],
  // 'self', *, scheme sources.
  [["script-src 'self'"], local, true],
  [["script-src 'SELF'"], local, true],
  [["default-src 'self'"], local, true],
  [['script-src *'], local, true],
  [['script-src http:'], local, true],
  [['script-src https:'], local, false],
  [['script-src https:'], secure, true],
  // http: also allows the more secure scheme; https: never the less secure one.
  [['script-src http:'], secure, true],
  [['script-src data: blob:'], local, false],
  // 'none', an empty list, sources that name nothing plain.
  [["script-src 'none'"], local, false],
  [['script-src'], local, false],
  [["default-src 'none'"], local, false],
  [["default-src 'none'; img-src 'self'"], local, false],
  // 'none' among other sources is only ignored.
  [["script-src 'none' 'self'"], local, true],
  [["script-src 'nonce-abc'"], local, false],
  [["script-src 'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"], local, false],
  [["script-src 'unsafe-inline' 'unsafe-eval'"], local, false],
  // Host sources: the origin's host and port, wildcards, paths.
  [['script-src https://cdn.example'], local, false],
  [['script-src https://cdn.example'], secure, false],
  [['script-src shop--v0123456789ab.rooms.localhost:8080'], local, true],
  [['script-src shop--v0123456789ab.rooms.localhost'], local, false],
  [['script-src http://shop--v0123456789ab.rooms.localhost:*'], local, true],
  [['script-src *.rooms.localhost:8080'], local, true],
  [['script-src *.shop--v0123456789ab.rooms.localhost:8080'], local, false],
  [['script-src *.rooms.example'], secure, true],
  [['script-src http://*.rooms.example'], secure, true],
  [['script-src https://*.rooms.example'], local, false],
  [['script-src https://shop--v0123456789ab.rooms.example:443'], secure, true],
  [['script-src https://shop--v0123456789ab.rooms.example:8443'], secure, false],
  [['script-src http://*:8080'], local, true],
  [['script-src https://shop--v0123456789ab.rooms.example/__pp/'], secure, true],
  [['script-src https://shop--v0123456789ab.rooms.example/assets/'], secure, false],
  // The helper alone is not the agent: the library it imports must load too.
  [['script-src https://shop--v0123456789ab.rooms.example/__pp/frame-helper.js'], secure, false],
  [
    ['script-src https://shop--v0123456789ab.rooms.example/__pp/frame-helper.js https://shop--v0123456789ab.rooms.example/__pp/capture.js'],
    secure,
    true,
  ],
  // script-src-elem over script-src over default-src.
  [["default-src 'none'; script-src 'self'"], local, true],
  [["default-src 'self'; script-src 'none'"], local, false],
  [["script-src 'none'; script-src-elem 'self'"], local, true],
  [["script-src 'self'; script-src-elem 'none'"], local, false],
  [["script-src-attr 'none'"], local, true],
  // The first of a repeated directive wins, names in any case.
  [["script-src 'self'; script-src 'none'"], local, true],
  [["SCRIPT-SRC 'none'; script-src 'self'"], local, false],
  // 'strict-dynamic': the helper's tag is parser-inserted and has no nonce, 'self' and hosts no longer count.
  [["script-src 'strict-dynamic' 'nonce-abc' 'self'"], local, false],
  [["script-src 'nonce-abc' 'strict-dynamic' https: http: 'unsafe-inline'"], local, false],
  [["default-src 'self' 'strict-dynamic' 'nonce-abc'"], local, false],
  [["script-src 'self'; default-src 'strict-dynamic'"], local, true],
  // A sandbox without allow-scripts stops every script.
  [['sandbox'], local, false],
  [['sandbox allow-forms'], local, false],
  [['sandbox allow-scripts allow-same-origin'], local, true],
  // Every policy applies: several header values, and several policies in one value.
  [["script-src 'self'", "script-src 'none'"], local, false],
  [["script-src 'self', script-src 'none'"], local, false],
  [["script-src 'self', default-src 'self'", 'frame-ancestors http://localhost:8080'], local, true],
  [['script-src *, script-src https://cdn.example'], local, false],
  // Stray separators and whitespace.
  [[";; script-src\t'self'  ;"], local, true],
  [[' , '], local, true],
];

describe('agentAllowedBy', () => {
  it.each(table)('%j on %s: %s', (policies, origin, allowed) => {
    expect(agentAllowedBy(policies, origin)).toBe(allowed);
  });
});

describe('parsePolicy', () => {
  it('lowercases names, keeps the first of a name, and skips empty or malformed directives', () => {
    expect(parsePolicy(" Script-Src 'self' https://a.example ; ; script-src 'none'; bad/name x; img-src")).toEqual(
      new Map([
        ['script-src', ["'self'", 'https://a.example']],
        ['img-src', []],
      ]),
    );
  });
});
