import { describe, expect, it } from 'vitest';
import { pathMove } from './open-path.js';

const at = (path: string) => new URL(path, 'http://app.example');

describe('how a story step gets the app to its page', () => {
  it('moves the hash when the page differs only in it', () => {
    expect(pathMove(at('/docs/#/tag/op'), at('/docs/#/'))).toBe('hash');
    expect(pathMove(at('/docs/#/tag/op'), at('/docs/'))).toBe('hash');
  });

  it('stays when the app is already there', () => {
    expect(pathMove(at('/docs/#/tag/op'), at('/docs/#/tag/op'))).toBe('stay');
  });

  it('loads the address for another page, another query, a step without a hash, or an unknown screen', () => {
    expect(pathMove(at('/other/#/tag/op'), at('/docs/#/'))).toBe('load');
    expect(pathMove(at('/docs/?v=2#/tag/op'), at('/docs/#/'))).toBe('load');
    expect(pathMove(at('/docs/'), at('/docs/'))).toBe('load');
    expect(pathMove(at('/docs/#/x'), null)).toBe('load');
  });
});
