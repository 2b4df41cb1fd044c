import { expect, it } from 'vitest';
import { HeadTagSplicer, isDocumentRequest, withHeadTag } from './frame-helper-tag.js';

const tag = '<script src="/__pp/frame-helper.js"></script>';
const put = (html: string) => withHeadTag(Buffer.from(html), tag).toString();
const count = (html: string) => html.split(tag).length - 1;

it('puts the helper inside the head, never before the doctype', () => {
  expect(put('<!doctype html><html lang="en"><head><title>x</title></head><body></body></html>')).toBe(
    `<!doctype html><html lang="en"><head>${tag}<title>x</title></head><body></body></html>`,
  );
  expect(put('<!DOCTYPE html><HEAD data-x="1">')).toBe(`<!DOCTYPE html><HEAD data-x="1">${tag}`);
  expect(put('<!doctype html><html><body>no head</body></html>')).toBe(`<!doctype html><html>${tag}<body>no head</body></html>`);
  expect(put('<!doctype html><h1>bare</h1>')).toBe(`<!doctype html>${tag}<h1>bare</h1>`);
  expect(put('<p>fragment</p>')).toBe(`${tag}<p>fragment</p>`);
  // <header> is not <head>.
  expect(put('<!doctype html><header>top</header>')).toBe(`<!doctype html>${tag}<header>top</header>`);
  expect(put('<!doctype html>')).toBe(`<!doctype html>${tag}`);
  expect(put('')).toBe(tag);
});

it('is put where the HTML parser opens the head: never inside a comment, a script, a template or a textarea', () => {
  // A commented-out head before the real one: a search for "<head" put the tag inside the comment.
  expect(put('<!doctype html><!-- <head> was here --><html><head><title>x</title>')).toBe(
    `<!doctype html><!-- <head> was here --><html><head>${tag}<title>x</title>`,
  );
  // No head of its own, and templates holding whole documents (Node-RED's editor page): once, before the first element.
  const templates = `<!doctype html>\n<html>\n<script type="text/x-red" data-template-name="inject"><html><head><title>t</title></head><body></body></html></script>\n<template><head></head></template><textarea></head><body></textarea></html>`;
  const out = put(templates);
  expect(count(out)).toBe(1);
  expect(out).toBe(`<!doctype html>\n<html>\n${tag}<script type="text/x-red"${templates.slice(templates.indexOf(' data-template-name'))}`);
  // Whitespace and comments come before it; text does not.
  expect(put('\n  <!-- a --> hello <head>')).toBe(`\n  <!-- a -->${tag} hello <head>`);
});

it('keeps a byte order mark first and leaves the bytes of the page as they are', () => {
  const page = Buffer.concat([
    Buffer.from([0xef, 0xbb, 0xbf]),
    Buffer.from('<!doctype html><head><title>Ünïcødé ✓</title>'),
    Buffer.from([0xe9]),
  ]);
  const out = withHeadTag(page, tag);
  expect(out.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  expect(out.toString('latin1')).toBe(`${page.subarray(0, 24).toString('latin1')}${tag}${page.subarray(24).toString('latin1')}`);
});

it('finds the point across pieces, holds only until then, and gives up past its limit', () => {
  const page = `<!doctype html><!-- ${'x'.repeat(100)} --><html lang="en"><head><title>t</title></head><body>${'<p>para</p>'.repeat(1000)}</body></html>`;
  const splicer = new HeadTagSplicer(tag);
  const out: Buffer[] = [];
  const passed: boolean[] = [];
  for (let i = 0; i < page.length; i += 7) {
    const piece = Buffer.from(page.slice(i, i + 7));
    const sent = splicer.push(piece);
    out.push(...sent);
    passed.push(sent.length === 1 && sent[0] === piece);
  }
  out.push(...splicer.end());
  expect(Buffer.concat(out).toString()).toBe(put(page));
  // Held up to the head's start tag, then each piece passed on as it came.
  const headPiece = Math.floor((page.indexOf('<head>') + 5) / 7);
  expect(passed.indexOf(true)).toBe(headPiece + 1);
  expect(passed.slice(headPiece + 1).every(Boolean)).toBe(true);

  const long = new HeadTagSplicer(tag, 1000);
  const comment = Buffer.from(`<!-- ${'y'.repeat(5000)} -->`);
  const head = Buffer.from('<head><title>late</title>');
  expect(Buffer.concat([...long.push(comment), ...long.push(head), ...long.end()])).toEqual(Buffer.concat([comment, head]));
});

it('tells a document load from an app fetching HTML', () => {
  expect(isDocumentRequest({ 'sec-fetch-dest': 'iframe', accept: 'text/html' })).toBe(true);
  expect(isDocumentRequest({ 'sec-fetch-dest': 'document' })).toBe(true);
  expect(isDocumentRequest({ 'sec-fetch-dest': 'empty', accept: 'text/html, */*; q=0.01' })).toBe(false);
  expect(isDocumentRequest({ accept: 'text/html,application/xhtml+xml' })).toBe(true);
  expect(isDocumentRequest({ accept: '*/*' })).toBe(false);
});
