import { Page } from './Page.js';

/** An area whose screens are not built yet: said plainly, never a broken page. */
export function ComingSoon({ title }: { title: string }) {
  return (
    <Page title={title}>
      <div className="empty">
        <p>Coming soon. Everything here is already in the API and the <code>pitch</code> tool.</p>
      </div>
    </Page>
  );
}
