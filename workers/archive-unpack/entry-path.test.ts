import { describe, expect, it } from 'vitest';
import { ArchiveRefusal } from './archive-rules.js';
import { EntryIndex } from './entry-index.js';
import { checkEntryPath, foldPath, type EntryKind } from './entry-path.js';

function ruleOf(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    if (err instanceof ArchiveRefusal) return err.rule;
    throw err;
  }
  return 'passed';
}

describe('checkEntryPath', () => {
  const accepted: [string, EntryKind, string][] = [
    ['index.html', 'file', 'index.html'],
    ['./index.html', 'file', 'index.html'],
    ['././index.html', 'file', 'index.html'],
    ['assets/app.js', 'file', 'assets/app.js'],
    ['assets/', 'directory', 'assets'],
    ['./assets/css/', 'directory', 'assets/css'],
    ['assets', 'directory', 'assets'],
    ['./', 'directory', ''],
    ['.', 'directory', ''],
    ['caf\u00e9/日本語 page.html', 'file', 'caf\u00e9/日本語 page.html'],
    ['..foo/bar..', 'file', '..foo/bar..'],
    ['.well-known/security.txt', 'file', '.well-known/security.txt'],
    ['emoji-\u{1f600}.txt', 'file', 'emoji-\u{1f600}.txt'],
    ['12345', 'file', '12345'],
    [`${'d/'.repeat(31)}f`, 'file', `${'d/'.repeat(31)}f`],
  ];
  it.each(accepted)('accepts %j as a %s → %j', (name, kind, path) => {
    expect(checkEntryPath(name, kind)).toBe(path);
  });

  const refused: [string, EntryKind, string][] = [
    ['', 'file', 'empty'],
    ['.', 'file', 'empty'],
    ['./', 'file', 'empty'],
    ['f/', 'file', 'empty'],
    ['a//b', 'file', 'empty'],
    ['a//', 'directory', 'empty'],
    ['a/./b', 'file', 'dot'],
    ['a/.', 'directory', 'dot'],
    ['..', 'directory', 'climb'],
    ['../moo', 'file', 'climb'],
    ['tmp/../../moo', 'file', 'climb'],
    ['./a/../../b', 'file', 'climb'],
    ['a/..', 'directory', 'climb'],
    ['a/b/../c', 'file', 'climb'],
    ['/tmp/moo', 'file', 'absolute'],
    ['//tmp/moo', 'file', 'absolute'],
    ['////home/u/.bashrc', 'file', 'absolute'],
    ['/', 'directory', 'absolute'],
    ['C:/x', 'file', 'absolute'],
    ['C:x', 'file', 'absolute'],
    ['c:..', 'file', 'absolute'],
    ['C:../x/y/z', 'file', 'absolute'],
    ['Y:foo', 'file', 'absolute'],
    ['C:\\x', 'file', 'backslash'],
    ['\\\\server\\x', 'file', 'backslash'],
    ['..\\..\\x', 'file', 'backslash'],
    ['a\\b', 'file', 'backslash'],
    ['page.html:stream', 'file', 'colon'],
    ['a/b:c', 'file', 'colon'],
    ['x\0y', 'file', 'control'],
    ['a\nb', 'file', 'control'],
    ['a\rb', 'file', 'control'],
    ['a\tb', 'file', 'control'],
    ['a\u007fb', 'file', 'control'],
    ['a\u0085b', 'file', 'control'],
    ['evil\u202egnp.html', 'file', 'control'],
    ['a\u2028b', 'file', 'control'],
    ['a\ufffdb', 'file', 'encoding'],
    ['n'.repeat(256), 'file', 'path-too-long'],
    [Array.from({ length: 5 }, () => 'p'.repeat(250)).join('/'), 'file', 'path-too-long'],
    [`${'d/'.repeat(32)}f`, 'file', 'depth'],
    [`./${'a/'.repeat(222_372)}foo.txt`, 'file', 'depth'],
  ];
  it.each(refused)('refuses %j as a %s with %s', (name, kind, rule) => {
    expect(ruleOf(() => checkEntryPath(name, kind))).toBe(rule);
  });

  it('takes limits', () => {
    expect(ruleOf(() => checkEntryPath('a/b/c', 'file', { maxDepth: 2, maxPathBytes: 1024 }))).toBe('depth');
    expect(ruleOf(() => checkEntryPath('abcdef', 'file', { maxDepth: 2, maxPathBytes: 5 }))).toBe('path-too-long');
  });

  it('names the entry and the rule in one sentence', () => {
    try {
      checkEntryPath('a/../../b', 'file');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ArchiveRefusal);
      expect(err).toMatchObject({ rule: 'climb', entry: 'a/../../b', detail: '"a/../../b": a path may not climb out with ..' });
    }
  });
});

describe('foldPath', () => {
  it.each([
    ['index.html', 'INDEX.HTML'],
    ['caf\u00e9', 'cafe\u0301'],
    ['stra\u00dfe', 'strasse'],
    ['\ufb00', 'FF'],
    ['\u017f', 'S'],
    ['\u212a', 'k'],
    ['a\u200bb', 'ab'],
    ['\uff41.html', 'a.html'],
  ])('folds %j and %j together', (a, b) => {
    expect(foldPath(a)).toBe(foldPath(b));
  });

  it('keeps different names apart', () => {
    expect(foldPath('a.html')).not.toBe(foldPath('b.html'));
    expect(foldPath('a/b')).not.toBe(foldPath('ab'));
  });
});

describe('EntryIndex', () => {
  const index = () => new EntryIndex(10);

  it('refuses a second file at one folded path', () => {
    const i = index();
    i.addFile('index.html', 'index.html');
    expect(ruleOf(() => i.addFile('index.html', './index.html'))).toBe('duplicate');
    expect(ruleOf(() => i.addFile('Index.html', 'Index.html'))).toBe('duplicate');
  });

  it('refuses a name used as a file and as a folder, either way round', () => {
    const i = index();
    i.addFile('a', 'a');
    expect(ruleOf(() => i.addFile('a/b', 'a/b'))).toBe('conflict');
    expect(ruleOf(() => i.addFolder('a', 'a/'))).toBe('conflict');
    const j = index();
    j.addFile('x/y', 'x/y');
    expect(ruleOf(() => j.addFile('x', 'x'))).toBe('conflict');
    expect(ruleOf(() => j.addFile('X', 'X'))).toBe('conflict');
  });

  it('lets a folder be named again only with the same spelling', () => {
    const i = index();
    i.addFile('a/x', 'a/x');
    i.addFolder('a', 'a/');
    i.addFolder('a', './a/');
    expect(ruleOf(() => i.addFolder('A', 'A/'))).toBe('duplicate');
    expect(ruleOf(() => i.addFile('A/y', 'A/y'))).toBe('duplicate');
  });

  it('counts folders against its limit', () => {
    const i = new EntryIndex(2);
    i.addFolder('a/b', 'a/b/');
    expect(ruleOf(() => i.addFolder('c', 'c/'))).toBe('too-many-files');
  });

  it('finds index.html only as spelt', () => {
    const i = index();
    i.addFile('INDEX.HTML', 'INDEX.HTML');
    expect(i.has('index.html')).toBe(false);
    expect(i.has('INDEX.HTML')).toBe(true);
  });
});
