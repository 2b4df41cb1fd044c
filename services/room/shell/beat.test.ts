import { describe, expect, it } from 'vitest';
import { beatBody } from './beat.js';

describe("a beat's body", () => {
  it('says the time, and that a container room has its copy open', () => {
    expect(JSON.stringify(beatBody('static', { app: 5 }))).toBe('{"time":{"app":5}}');
    expect(JSON.stringify(beatBody('container', { app: 5 }))).toBe('{"time":{"app":5},"copy":true}');
    expect(JSON.stringify(beatBody(null, {}))).toBe('{"time":{}}');
  });

  it('carries a flag after the time, as the room has always read it', () => {
    expect(JSON.stringify(beatBody('container', { app: 1 }, { hidden: true }))).toBe('{"time":{"app":1},"copy":true,"hidden":true}');
    expect(JSON.stringify(beatBody('static', {}, { shown: true }))).toBe('{"time":{},"shown":true}');
  });
});
