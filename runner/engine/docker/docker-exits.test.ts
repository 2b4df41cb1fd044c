import { describe, expect, it } from 'vitest';
import { exitOf, splitEvents } from './docker-exits.js';

// Docker's event format is read here and nowhere else: what the runner gets is a parsed exit.

const die = (id: string, copy: string | null, code: string, time = 100) => ({
  Type: 'container',
  Action: 'die',
  time,
  Actor: { ID: id, Attributes: { ...(copy ? { 'rooms.copy': copy } : {}), exitCode: code } },
});

describe('docker exits', () => {
  it('splits events sent one a line (podman) or back to back (Docker), keeping an unfinished one', () => {
    const a = JSON.stringify(die('a', 'c1', '0'));
    const b = JSON.stringify(die('b', 'c2', '1'));
    expect(splitEvents(`${a}\n${b}\n`)).toEqual({ events: [a, b], rest: '' });
    expect(splitEvents(`${a}${b}`)).toEqual({ events: [a, b], rest: '' });
    expect(splitEvents(`${a}\n${b.slice(0, 10)}`)).toEqual({ events: [a], rest: b.slice(0, 10) });
  });

  it("tells a copy's exit with its code, and an OOM kill from the oom event before its die", () => {
    const seen = new Set<string>();
    expect(exitOf(die('a', 'c1', '3', 7), seen)).toEqual({ copyId: 'c1', handle: 'a', exitCode: 3, oom: false, at: 7 });
    expect(exitOf({ Type: 'container', Action: 'oom', Actor: { ID: 'b', Attributes: { 'rooms.copy': 'c2' } } }, seen)).toBeNull();
    expect(exitOf(die('b', 'c2', '137'), seen)).toMatchObject({ copyId: 'c2', exitCode: 137, oom: true });
  });

  it('ignores what is not a copy exit', () => {
    const seen = new Set<string>();
    expect(exitOf(die('a', null, '0'), seen)).toBeNull();
    expect(exitOf({ Type: 'container', Action: 'start', Actor: { ID: 'a', Attributes: { 'rooms.copy': 'c1' } } }, seen)).toBeNull();
    expect(exitOf({ Type: 'network', Action: 'die' }, seen)).toBeNull();
  });
});
