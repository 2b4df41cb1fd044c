import { useOp } from '../../api/hooks.js';
import { AllLoaded } from '../../ui/Async.js';
import { Page } from '../../ui/Page.js';
import { BrandSettings } from './BrandSettings.js';
import { ThemeEditor } from './ThemeEditor.js';
import './brand.css';

// The workspace's brand (name, accent, logo) and the room's theme, with a live preview of the
// room and the readability checks exactly as the API makes them (services/core/rules/room-theme.ts).

export default function BrandArea() {
  const workspaces = useOp('listWorkspaces');
  const reads = [workspaces, useOp('getBrand'), useOp('getTheme'), useOp('whoami')];
  const active = workspaces.data?.find((w) => w.active);
  return (
    <Page title="Brand and theme" lead="How your rooms look to the people you send them to.">
      {active?.kind === 'team' && active.role !== 'owner' && (
        <p className="notice">
          You are a member of {active.name}: only its owners change the brand and theme. You can still try colours in the preview.
        </p>
      )}
      <AllLoaded queries={reads} lines={16}>
        <BrandSettings />
        <ThemeEditor />
      </AllLoaded>
    </Page>
  );
}
