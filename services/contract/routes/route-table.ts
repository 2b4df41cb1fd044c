import { accountRoutes } from './account.routes.js';
import { alertRoutes } from './alerts.routes.js';
import { activityRoutes } from './activity.routes.js';
import { authRoutes } from './auth.routes.js';
import { brandRoutes } from './brand.routes.js';
import { cardRoutes } from './card.routes.js';
import { communityRoutes } from './community.routes.js';
import { connectorRoutes } from './connector.routes.js';
import { deployRoutes } from './deploy.routes.js';
import { healthRoutes } from './health.routes.js';
import { linkRoutes } from './links.routes.js';
import { pipelineRoutes } from './pipeline.routes.js';
import { projectRoutes } from './projects.routes.js';
import { roomSetupRoutes } from './room-setup.routes.js';
import { webhookRoutes } from './webhooks.routes.js';
import { workspaceRoutes } from './workspaces.routes.js';

/** The route table: every endpoint of the platform, by operation name. */
export const routes = {
  ...healthRoutes,
  ...authRoutes,
  ...accountRoutes,
  ...alertRoutes,
  ...connectorRoutes,
  ...workspaceRoutes,
  ...projectRoutes,
  ...deployRoutes,
  ...linkRoutes,
  ...activityRoutes,
  ...roomSetupRoutes,
  ...pipelineRoutes,
  ...brandRoutes,
  ...cardRoutes,
  ...communityRoutes,
  ...webhookRoutes,
};

export type Routes = typeof routes;
export type Operation = keyof Routes;
