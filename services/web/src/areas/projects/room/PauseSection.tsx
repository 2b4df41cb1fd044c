import { useState } from 'react';
import { api } from '../../../api/client.js';
import { useAction, useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Dialog } from '../../../ui/Dialog.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';
import { Time } from '../../../ui/Time.js';

// Whether the room is open, and a one-time preview of it as a viewer sees it. A paused room
// shows every viewer the note; deploys and new links still work.

type OwnerPause = { by?: { displayName?: string } | null; message?: string | null; at?: string };

const PLATFORM_PAUSE: Record<string, string> = {
  'over-limit': 'The platform paused the room: the plan’s limit is reached.',
  suspended: 'The platform suspended the room.',
  takedown: 'The platform took the room down.',
};

export function PauseSection({ projectId }: { projectId: string }) {
  const pause = useOp('getRoomPause', { params: { projectId } });
  const resume = useChange('resumeRoom');
  const [open, setOpen] = useState(false);
  return (
    <Section title="Room status" actions={<PreviewButton projectId={projectId} />}>
      <Async query={pause} lines={2}>
        {(p) => {
          const owner = p.owner as OwnerPause | null;
          return (
            <>
              <p>
                Viewers meet:{' '}
                {p.viewers === 'room' ? (
                  <span className="badge live">Open</span>
                ) : p.viewers === 'paused' ? (
                  <span className="badge warn">Paused</span>
                ) : (
                  <span className="badge bad">Unavailable</span>
                )}
              </p>
              {p.system && <p className="notice">{PLATFORM_PAUSE[p.system] ?? p.system}</p>}
              {owner && (
                <p>
                  Paused by {owner.by?.displayName ?? 'someone'} <Time at={owner.at} />
                  {owner.message ? (
                    <>
                      {' '}
                      with the note: <q>{owner.message}</q>
                    </>
                  ) : (
                    ' without a note.'
                  )}
                </p>
              )}
              <div className="row">
                <button type="button" className={owner ? 'secondary' : 'danger'} onClick={() => setOpen(true)}>
                  {owner ? 'Change the note' : 'Pause room'}
                </button>
                {owner && (
                  <button type="button" disabled={resume.isPending} onClick={() => resume.mutate({ params: { projectId } })}>
                    Resume room
                  </button>
                )}
              </div>
              <Refusal error={resume.error} />
              <PauseDialog projectId={projectId} open={open} onOpenChange={setOpen} note={owner?.message ?? ''} paused={!!owner} />
            </>
          );
        }}
      </Async>
    </Section>
  );
}

function PauseDialog({
  projectId,
  open,
  onOpenChange,
  note,
  paused,
}: {
  projectId: string;
  open: boolean;
  onOpenChange: (o: boolean) => void;
  note: string;
  paused: boolean;
}) {
  const [message, setMessage] = useState(note);
  const pause = useChange('pauseRoom', () => onOpenChange(false));
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        if (o) setMessage(note);
        onOpenChange(o);
      }}
      title={paused ? 'Change the note' : 'Pause the room?'}
      description="Every working link shows who paused it and this note, and no demo starts until you resume. Deploys and new links still work."
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          pause.mutate({ params: { projectId }, body: { message: message.trim() || null } });
        }}
      >
        <div className="field">
          <label htmlFor="pause-note">Note for viewers (optional)</label>
          <textarea id="pause-note" maxLength={280} value={message} onChange={(e) => setMessage(e.target.value)} />
          <p className="hint">{280 - message.length} characters left.</p>
        </div>
        <Refusal error={pause.error} />
        <div className="row">
          <button type="submit" className={paused ? '' : 'danger'} disabled={pause.isPending}>
            {paused ? 'Save note' : 'Pause the room'}
          </button>
          <button type="button" className="secondary" onClick={() => onOpenChange(false)}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/**
 * Opens the room as a viewer sees it. The window is opened on the click itself (a popup opened
 * after an await is blocked), then sent to the one-time address; if it could not be opened, the
 * address is shown to click.
 */
function PreviewButton({ projectId }: { projectId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const preview = useAction(async (tab: Window | null) => {
    try {
      const { url } = await api.call('previewPass', { params: { projectId } });
      if (tab) tab.location.href = url;
      else setUrl(url);
      return url;
    } catch (e) {
      tab?.close();
      throw e;
    }
  });
  return (
    <div>
      <button
        type="button"
        className="secondary"
        disabled={preview.isPending}
        onClick={() => {
          setUrl(null);
          const tab = window.open('about:blank', '_blank');
          if (tab) tab.opener = null;
          preview.mutate(tab);
        }}
      >
        Open the room
      </button>
      {url && (
        <p>
          <a href={url} target="_blank" rel="noopener noreferrer">
            Open the preview (one use, 2 minutes)
          </a>
        </p>
      )}
      <Refusal error={preview.error} />
    </div>
  );
}
