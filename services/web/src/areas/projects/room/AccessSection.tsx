import { useChange, useOp } from '../../../api/hooks.js';
import { Async } from '../../../ui/Async.js';
import { Section } from '../../../ui/Page.js';
import { Refusal } from '../../../ui/Refusal.js';

/** Who gets in: whether the room asks each viewer for an email (never checked, nothing sent). */
export function AccessSection({ projectId }: { projectId: string }) {
  const access = useOp('getAccess', { params: { projectId } });
  const set = useChange('setAccess');
  return (
    <Section title="Access">
      <Async query={access} lines={2}>
        {(a) => (
          <>
            <div className="check-row">
              <input
                id="require-email"
                type="checkbox"
                checked={a.requireEmail}
                disabled={set.isPending}
                onChange={(e) => set.mutate({ params: { projectId }, body: { requireEmail: e.target.checked } })}
              />
              <label htmlFor="require-email">Ask viewers for their email before the room opens</label>
            </div>
            <p className="hint">The email is not verified and nothing is sent to it.</p>
            <p className="muted">
              {a.privateLinks
                ? 'Your plan includes private links for named viewers.'
                : 'Your plan does not include private links; a paid plan does.'}
            </p>
            <Refusal error={set.error} />
          </>
        )}
      </Async>
    </Section>
  );
}
