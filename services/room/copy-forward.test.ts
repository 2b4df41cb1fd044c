import { expect, it } from 'vitest';
import { endToEnd } from './copy-forward.js';

it('forwards end-to-end headers only: hop-by-hop ones and those Connection names stay behind', () => {
  const headers = { host: 'a', connection: 'keep-alive, x-secret-hop', 'keep-alive': 'timeout=5', 'transfer-encoding': 'chunked', upgrade: 'h2c', 'x-secret-hop': '1', 'x-kept': '2', 'set-cookie': ['a=1', 'b=2'], gone: undefined };
  expect(endToEnd(headers)).toEqual({ host: 'a', 'x-kept': '2', 'set-cookie': ['a=1', 'b=2'] });
});
