import { describe, expect, it } from 'vitest';
import { peopleOf } from './journey.service.js';

// A journey's people (issue 47, item 4): one person on three devices is one person.

describe('peopleOf', () => {
  it('is one person for one name on several devices, with or without the email', () => {
    const people = peopleOf([
      { name: 'Ada Lovelace', email: null },
      { name: 'ada lovelace ', email: 'ada@example.com' },
      { name: 'Ada Lovelace', email: 'ADA@example.com' },
    ]);
    expect(people).toEqual([{ name: 'Ada Lovelace', email: 'ada@example.com', sessions: 3 }]);
  });

  it('keeps apart two emails under one name, other names, and unnamed sessions', () => {
    const people = peopleOf([
      { name: 'Sam', email: 'sam@a.example' },
      { name: 'Sam', email: 'sam@b.example' },
      { name: 'Bo', email: null },
      { name: null, email: null },
      { name: null, email: null },
    ]);
    expect(people.map((p) => [p.name, p.email, p.sessions])).toEqual([
      ['Sam', 'sam@a.example', 1],
      ['Sam', 'sam@b.example', 1],
      ['Bo', null, 1],
      [null, null, 1],
      [null, null, 1],
    ]);
  });
});
