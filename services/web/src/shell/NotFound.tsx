import { Link } from 'wouter';
import { Page } from '../ui/Page.js';

export function NotFound() {
  return (
    <Page title="Not found">
      <div className="empty">
        <p>
          Nothing lives at this address. <Link href="/">Go to your projects</Link>.
        </p>
      </div>
    </Page>
  );
}
