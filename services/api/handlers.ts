import { activityHandlers } from './activity/activity.handlers.js';
import { deployHandlers } from './deploy/deploy.handlers.js';
import { linkHandlers } from './links/links.handlers.js';
import { roomSetupHandlers } from './room-setup/room-setup.handlers.js';
import { projectHandlers } from './projects/projects.handlers.js';
import { accountHandlers } from './account/account.handlers.js';
import { alertHandlers } from './alerts/alerts.handlers.js';
import { authHandlers } from './auth/auth.handlers.js';
import type { Handlers } from './routing/handler.js';
import { platformHandlers } from './platform.handlers.js';
import { workspaceHandlers } from './workspaces/workspaces.handlers.js';
import { usageHandlers } from './usage/usage.handlers.js';
import { exitHandlers } from './projects/exits.handlers.js';
import { feedbackHandlers } from './activity/feedback.handlers.js';
import { nextStepsHandlers } from './room-setup/next-steps.handlers.js';
import { pipelineHandlers } from './pipeline/pipeline.handlers.js';
import { connectorTokenHandlers } from './mcp/connector-tokens.handlers.js';
import { cardHandlers } from './community/cards.handlers.js';
import { communityHandlers } from './community/community.handlers.js';
import { brandHandlers } from './brand/brand.handlers.js';
import { profileHandlers } from './community/profiles.handlers.js';
import { arrangementHandlers } from './community/arrangement.handlers.js';
import { webhookHandlers } from './webhooks/webhooks.handlers.js';

/** Every handler of the api, by operation: a row of the route table missing here does not compile. */
export const handlers: Handlers = {
  ...platformHandlers,
  ...authHandlers,
  ...accountHandlers,
  ...alertHandlers,
  ...workspaceHandlers,
  ...projectHandlers,
  ...exitHandlers,
  ...deployHandlers,
  ...linkHandlers,
  ...roomSetupHandlers,
  ...usageHandlers,
  ...activityHandlers,
  ...feedbackHandlers,
  ...nextStepsHandlers,
  ...pipelineHandlers,
  ...connectorTokenHandlers,
  ...cardHandlers,
  ...communityHandlers,
  ...brandHandlers,
  ...profileHandlers,
  ...arrangementHandlers,
  ...webhookHandlers,
};
