import { ask } from '../context.js';
import { linkCommand } from './link-command.js';

export const linksRevealCommand = () =>
  linkCommand('reveal', "print a link's full address again (recorded in the project's history)", async (ctx, client, linkId) => {
    const { link, url } = await ask(`revealing link ${linkId}`, () => client.call('revealLink', { params: { linkId } }));
    ctx.info(`Link for ${link.viewerName}:`);
    ctx.result(url);
  });
