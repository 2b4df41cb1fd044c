import type { Session } from '../../../../contract/resources/account.js';

/** Connector tokens are listed among the sessions (issue 20); the device names them. */
export const isConnector = (s: Session) => s.signInMethod === 'connector' || s.device === 'AI-assistant connector';
