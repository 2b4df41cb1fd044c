import type { Session } from '@demo-rooms/contract';

/** Connector tokens are listed among the sessions (issue 20), of their own kind. */
export const isConnector = (s: Session) => s.kind === 'connector';
