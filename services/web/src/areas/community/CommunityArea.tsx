import { useOp } from '../../api/hooks.js';
import { AllLoaded } from '../../ui/Async.js';
import { Page } from '../../ui/Page.js';
import { Arrangement } from './Arrangement.js';
import { Notices } from './Notices.js';
import { ProfileForm } from './ProfileForm.js';
import './community.css';

// The builder's side of the community: what the platform told them (notices), how they are named
// there (profile), and the order their projects are shown in (groups).

export default function CommunityArea() {
  const reads = [useOp('listNotices'), useOp('getProfile'), useOp('getArrangement')];
  return (
    <Page title="Community" lead="Your notices, your public profile, and how your projects are grouped.">
      <AllLoaded queries={reads} lines={14}>
        <Notices />
        <ProfileForm />
        <Arrangement />
      </AllLoaded>
    </Page>
  );
}
