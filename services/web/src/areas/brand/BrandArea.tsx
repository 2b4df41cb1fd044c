import { Page } from '../../ui/Page.js';
import { BrandSettings } from './BrandSettings.js';
import { ThemeEditor } from './ThemeEditor.js';
import './brand.css';

// The workspace's brand (name, accent, logo) and the room's theme, with a live preview of the
// room and the readability checks exactly as the API makes them (services/core/room-theme.ts).

export default function BrandArea() {
  return (
    <Page title="Brand and theme" lead="How your rooms look to the people you send them to.">
      <BrandSettings />
      <ThemeEditor />
    </Page>
  );
}
