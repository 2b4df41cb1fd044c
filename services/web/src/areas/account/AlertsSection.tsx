import type { AlertKind, AlertMode } from '@demo-rooms/contract';
import { useChange, useOp } from '../../api/hooks.js';
import { Async } from '../../ui/Async.js';
import { Section } from '../../ui/Page.js';
import { Refusal } from '../../ui/Refusal.js';

// Issue 34: how this person hears of what viewers do in the active workspace, per kind: a mail at
// once (at most one per kind and link an hour), the day's digest, or the in-app list only.

const kinds: { kind: AlertKind; label: string }[] = [
  { kind: 'link.opened', label: 'A viewer opens a room for the first time' },
  { kind: 'next_step.answered', label: 'A viewer answers “What happens next”' },
  { kind: 'comment.left', label: 'A viewer leaves a comment' },
];

const modes: { mode: AlertMode; label: string }[] = [
  { mode: 'instant', label: 'Mail at once' },
  { mode: 'digest', label: 'Daily digest' },
  { mode: 'off', label: 'In the app only' },
];

export function AlertsSection() {
  const settings = useOp('alertSettings');
  const save = useChange('setAlertSettings');
  return (
    <Section title="Alerts">
      <p className="muted">For this workspace. Every alert is also in the Alerts list; the digest goes out each day at 07:00 UTC.</p>
      <Async query={settings} lines={3}>
        {(s) => (
          <div className="alert-settings">
            {kinds.map(({ kind, label }) => (
              <div className="field" key={kind}>
                <label htmlFor={`alert-${kind}`}>{label}</label>
                <select
                  id={`alert-${kind}`}
                  value={s[kind]}
                  disabled={save.isPending}
                  onChange={(e) => save.mutate({ body: { [kind]: e.target.value as AlertMode } })}
                >
                  {modes.map((m) => (
                    <option key={m.mode} value={m.mode}>
                      {m.label}
                    </option>
                  ))}
                </select>
              </div>
            ))}
          </div>
        )}
      </Async>
      <Refusal error={save.error} />
    </Section>
  );
}
