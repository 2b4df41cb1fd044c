import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { lazy, Suspense, type ComponentType } from 'react';
import { Route, Switch } from 'wouter';
import { ApiError } from './api/client.js';
import { Layout } from './shell/Layout.js';
import { NotFound } from './shell/NotFound.js';
import { DevicePage } from './sign-in/DevicePage.js';
import { EmailPage } from './sign-in/EmailPage.js';
import { InvitationPage } from './sign-in/InvitationPage.js';
import { LoginPage } from './sign-in/LoginPage.js';
import { Skeleton } from './ui/Async.js';

// The app's addresses. Each area is its own chunk, loaded when first opened, so the first screen
// carries only the shell and the area it shows. The api answers index.html for the same
// addresses (services/api/web-app/web-app.routes.ts).

const area = (load: () => Promise<{ default: ComponentType }>) => {
  const Area = lazy(load);
  return () => (
    <Suspense fallback={<Skeleton lines={6} />}>
      <Area />
    </Suspense>
  );
};

const Projects = area(() => import('./areas/projects/ProjectsArea.js'));
const Pipeline = area(() => import('./areas/pipeline/PipelineArea.js'));
const Analytics = area(() => import('./areas/analytics/AnalyticsArea.js'));
const Journey = area(() => import('./areas/analytics/JourneyArea.js'));
const Usage = area(() => import('./areas/usage/UsageArea.js'));
const Team = area(() => import('./areas/team/TeamArea.js'));
const Brand = area(() => import('./areas/brand/BrandArea.js'));
const Community = area(() => import('./areas/community/CommunityArea.js'));
const Account = area(() => import('./areas/account/AccountArea.js'));
const Webhooks = area(() => import('./areas/webhooks/WebhooksArea.js'));
const Alerts = area(() => import('./areas/alerts/AlertsArea.js'));

const queries = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal is an answer: asking again will not change it. Only a lost connection is retried.
      retry: (count, error) => !(error instanceof ApiError) && count < 2,
    },
  },
});

export function App() {
  return (
    <QueryClientProvider client={queries}>
      <Switch>
        <Route path="/login" component={LoginPage} />
        <Route path="/auth/email" component={EmailPage} />
        <Route path="/device" component={DevicePage} />
        <Route path="/invitations/:key" component={InvitationPage} />
        <Route>
          <Layout>
            <Switch>
              <Route path="/" component={Projects} />
              <Route path="/projects" component={Projects} nest />
              <Route path="/pipeline" component={Pipeline} />
              <Route path="/analytics" component={Analytics} />
              <Route path="/journey/:linkId" component={Journey} />
              <Route path="/usage" component={Usage} />
              <Route path="/team" component={Team} />
              <Route path="/brand" component={Brand} />
              <Route path="/community" component={Community} />
              <Route path="/webhooks" component={Webhooks} />
              <Route path="/account" component={Account} />
              <Route path="/alerts" component={Alerts} />
              <Route component={NotFound} />
            </Switch>
          </Layout>
        </Route>
      </Switch>
    </QueryClientProvider>
  );
}
