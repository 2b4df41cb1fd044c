import type { LinkStage } from '@demo-rooms/contract';

/** The board's columns in the order a link moves through them (spec 3). */
export const STAGES: { stage: LinkStage; name: string }[] = [
  { stage: 'sent', name: 'Sent' },
  { stage: 'opened', name: 'Opened' },
  { stage: 'engaged', name: 'Engaged' },
  { stage: 'yes', name: 'Yes' },
  { stage: 'later', name: 'Later' },
  { stage: 'no', name: 'No' },
];

export const stageName = (stage: LinkStage) => STAGES.find((s) => s.stage === stage)?.name ?? stage;
