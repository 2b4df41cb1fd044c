import type { ReplyOf, Routes } from '@demo-rooms/contract';

export type Card = ReplyOf<Routes['getCard']>;
type Finding = { part?: string; reason?: string; detail?: string };

const PART_WORDS: Record<string, string> = { title: 'Title', line: 'Line', slug: 'Address', pages: 'Pages', cover: 'Cover' };
const REASON_WORDS: Record<string, string> = {
  impersonation: 'impersonation',
  phishing: 'phishing',
  credentials: 'asks for credentials',
  banned: 'banned word',
};

/** Checks' findings (blocked parts or warnings) in words: which part, why, and the detail. */
export function Findings({ items, tone, title }: { items: unknown[]; tone: 'bad' | 'warn'; title: string }) {
  if (items.length === 0) return null;
  return (
    <div className={tone === 'bad' ? 'refusal' : 'notice'}>
      <p>
        <strong>{title}</strong>
      </p>
      <ul>
        {(items as Finding[]).map((f, i) => (
          <li key={i}>
            {f.part && <strong>{PART_WORDS[f.part] ?? f.part}</strong>}
            {f.reason && <> ({REASON_WORDS[f.reason] ?? f.reason})</>}
            {f.detail && <>: {f.detail}</>}
          </li>
        ))}
      </ul>
    </div>
  );
}

export const STATUS: Record<string, { label: string; tone: string; words: string }> = {
  draft: { label: 'Draft', tone: '', words: 'Not listed. Save a title and a line, then list it.' },
  listed: { label: 'Listed', tone: 'live', words: 'Shown in the community listing; anyone can open its public room.' },
  blocked: { label: 'Blocked', tone: 'bad', words: 'A check failed; fix what it names and list again, or appeal.' },
  pulled: { label: 'Taken off', tone: 'bad', words: 'The platform took this listing off; you may appeal.' },
  pending: { label: 'Waiting for review', tone: 'warn', words: 'Taken off before, so the platform reviews it before it is shown again.' },
};
