import { ask } from '../context.js';
import { linkCommand } from './link-command.js';

export const linksRevokeCommand = () =>
  linkCommand('revoke', 'stop a link opening the room, at once and for good', async (ctx, client, linkId) => {
    const link = await ask(`revoking link ${linkId}`, () => client.call('revokeLink', { params: { linkId } }));
    ctx.info(`Revoked the link for ${link.viewerName}; it no longer opens the room.`);
  });
