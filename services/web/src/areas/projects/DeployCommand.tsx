import { CopyButton } from '../../ui/CopyButton.js';

/** The one command that puts a build in a project, with a button to copy it. */
export function DeployCommand({ slug }: { slug?: string }) {
  const command = slug ? `pitch deploy --project ${slug}` : 'pitch deploy';
  return (
    <span className="row deploy-command">
      <code>{command}</code>
      <CopyButton value={command} label="Copy command" />
    </span>
  );
}
