import type { ViewerEvent } from '@demo-rooms/contract';

// What an alert says and where it leads, one wording for the mail, the digest and the in-app list.

const quoted = (s: string, max = 140) => `“${s.length > max ? `${s.slice(0, max - 1)}…` : s}”`;

/** The viewer as named by the link or who-are-you, with their company when known. */
export function viewerOf(event: ViewerEvent): string {
  const name = event.viewer.name?.trim() || 'A viewer';
  return event.viewer.company ? `${name} (${event.viewer.company})` : name;
}

/** What the viewer did, as a sentence without the project ("Ada opened the room"). */
export function alertSummary(event: ViewerEvent): string {
  const who = viewerOf(event);
  switch (event.kind) {
    case 'link.opened':
      return `${who} opened the room for the first time`;
    case 'next_step.answered':
      return `${who} answered “What happens next”: ${event.data.answer}${event.data.detail ? ` ${quoted(event.data.detail)}` : ''}`;
    case 'comment.left':
      return `${who} left a comment: ${quoted(event.data.body)}`;
    case 'visit.ended':
      return `${who} left after ${event.data.seconds} s`;
    case 'link.stage_changed':
      return `${who}'s link moved to ${event.data.to}`;
  }
}

/** The place in the web app: the link's journey, or the project's activity for a public room. */
export const alertHref = (event: ViewerEvent) => (event.linkId ? `/journey/${event.linkId}` : `/projects/${event.projectId}/activity`);
