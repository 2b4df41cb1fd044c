import { expect, it } from 'vitest';
import { LinkStage } from '@demo-rooms/contract';
import { STAGES, stageName } from './stages.js';

it('has one column for each stage of the contract, in the order a link moves through them', () => {
  expect(STAGES.map((s) => s.stage)).toEqual(LinkStage.options);
});

it('names each stage for people, and shows an unknown one as it is', () => {
  expect(LinkStage.options.map(stageName)).toEqual(['Sent', 'Opened', 'Engaged', 'Yes', 'Later', 'No']);
  expect(stageName('archived' as LinkStage)).toBe('archived');
});
