import { expect, it } from 'vitest';
import { withHeadTag } from './frame-helper-tag.js';

const tag = '<script src="/__pp/frame-helper.js"></script>';
const put = (html: string) => withHeadTag(Buffer.from(html), tag).toString();

it('puts the helper inside the head, never before the doctype', () => {
  expect(put('<!doctype html><html lang="en"><head><title>x</title></head><body></body></html>')).toBe(`<!doctype html><html lang="en"><head>${tag}<title>x</title></head><body></body></html>`);
  expect(put('<!DOCTYPE html><HEAD data-x="1">')).toBe(`<!DOCTYPE html><HEAD data-x="1">${tag}`);
  expect(put('<!doctype html><html><body>no head</body></html>')).toBe(`<!doctype html><html>${tag}<body>no head</body></html>`);
  expect(put('<!doctype html><h1>bare</h1>')).toBe(`<!doctype html>${tag}<h1>bare</h1>`);
  expect(put('<p>fragment</p>')).toBe(`${tag}<p>fragment</p>`);
  // <header> is not <head>.
  expect(put('<!doctype html><header>top</header>')).toBe(`<!doctype html>${tag}<header>top</header>`);
});
