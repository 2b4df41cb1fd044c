import { Page } from '../../ui/Page.js';
import './account.css';
import { AlertsSection } from './AlertsSection.js';
import { ConnectorSection } from './ConnectorSection.js';
import { DeleteSection } from './DeleteSection.js';
import { FeedbackSection } from './FeedbackSection.js';
import { ProfileSection } from './ProfileSection.js';
import { SessionsSection } from './SessionsSection.js';
import { SignInSection } from './SignInSection.js';

// Spec 2.10 and 4.6: the person, not the workspace. Each section reads what it shows, so one slow
// read does not hold the others.

export default function AccountArea() {
  return (
    <Page title="Account" lead="You, how you sign in, and where you are signed in. Nothing here changes your workspaces.">
      <ProfileSection />
      <SessionsSection />
      <SignInSection />
      <AlertsSection />
      <ConnectorSection />
      <FeedbackSection />
      <DeleteSection />
    </Page>
  );
}
