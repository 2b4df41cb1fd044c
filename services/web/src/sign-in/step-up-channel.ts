// A step-up by emailed link (ui/StepUp.tsx): the link opens in another tab of this browser, which
// signs in. Issue 47: that tab then went on to Projects, and the change asked for waited, forgotten,
// in the first tab. Now the tab that signed in tells the waiting one, which tries the change again,
// and says so instead of moving on. Tabs of one origin talk over a BroadcastChannel.

const CHANNEL = 'pp-step-up';

type Message = { kind: 'signed-in' } | { kind: 'resumed' };

/** Waits, in the tab that asked for a link, for another tab to sign in; answers it and calls `onSignedIn` once. Returns the way to stop. */
export function waitForSignIn(onSignedIn: () => void): () => void {
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent<Message>) => {
    if (event.data.kind !== 'signed-in') return;
    channel.postMessage({ kind: 'resumed' } satisfies Message);
    channel.close();
    onSignedIn();
  };
  return () => channel.close();
}

/** Tells a tab waiting for this sign-in; true when one answered within `ms` (it goes on with its change). */
export function tellWaitingTab(ms = 500): Promise<boolean> {
  const channel = new BroadcastChannel(CHANNEL);
  return new Promise((resolve) => {
    const done = (answered: boolean) => {
      clearTimeout(timer);
      channel.close();
      resolve(answered);
    };
    const timer = setTimeout(() => done(false), ms);
    channel.onmessage = (event: MessageEvent<Message>) => event.data.kind === 'resumed' && done(true);
    channel.postMessage({ kind: 'signed-in' } satisfies Message);
  });
}
