import type { Page } from 'playwright-core';

// The room's side of a comment screenshot, done from the shell page's own context the way the
// shell does it: a pp:capture posted to the app's frame, answered with pp:capture-ack, then
// pp:captured (services/room/content/frame-helper.js).

export type CaptureAnswer = {
  nonce: string;
  /** Whether pp:capture-ack came, and when (ms after asking). */
  ack: boolean;
  ackMs: number;
  /** pp:captured without its blob, or null when none came within `waitMs`. */
  captured: {
    type: string;
    nonce: string;
    ok: boolean;
    note?: string;
    imageType?: string;
    screen: string;
    width?: number;
    height?: number;
  } | null;
  answerMs: number;
  /** The picture's bytes. */
  bytes: Buffer | null;
  /** The frame's size in CSS pixels, as the shell's page lays it out. */
  frameWidth: number;
  frameHeight: number;
};

/** Asks the frame of `appId` for a picture, waiting up to `waitMs` for the answer. */
export async function capture(page: Page, appId: string, maxBytes: number, waitMs = 12_000): Promise<CaptureAnswer> {
  const answer = await page.evaluate(
    async ({ appId, maxBytes, waitMs }) => {
      const iframe = document.querySelector<HTMLIFrameElement>(`iframe[data-app="${appId}"]`)!;
      const nonce = crypto.randomUUID();
      const started = performance.now();
      let ackMs = -1;
      const captured = await new Promise<Record<string, unknown> | null>((resolve) => {
        const timer = setTimeout(() => done(null), waitMs);
        function done(value: Record<string, unknown> | null) {
          clearTimeout(timer);
          removeEventListener('message', onMessage);
          resolve(value);
        }
        function onMessage(event: MessageEvent) {
          if (event.source !== iframe.contentWindow || event.data?.nonce !== nonce) return;
          if (event.data.type === 'pp:capture-ack') ackMs = performance.now() - started;
          if (event.data.type === 'pp:captured') done(event.data);
        }
        addEventListener('message', onMessage);
        iframe.contentWindow!.postMessage({ type: 'pp:capture', nonce, maxBytes }, new URL(iframe.src).origin);
      });
      const answerMs = performance.now() - started;
      let base64: string | null = null;
      let blobType: string | null = null;
      if (captured && captured.blob instanceof Blob) {
        blobType = captured.blob.type;
        const url = await new Promise<string>((resolve) => {
          const reader = new FileReader();
          reader.onload = () => resolve(String(reader.result));
          reader.readAsDataURL(captured.blob as Blob);
        });
        base64 = url.slice(url.indexOf(',') + 1);
      }
      const rest = captured ? Object.fromEntries(Object.entries(captured).filter(([k]) => k !== 'blob')) : null;
      return { nonce, ackMs, captured: rest, answerMs, base64, blobType, frameWidth: iframe.clientWidth, frameHeight: iframe.clientHeight };
    },
    { appId, maxBytes, waitMs },
  );
  if (answer.base64 && answer.blobType !== answer.captured?.imageType)
    throw new Error(`blob is ${answer.blobType}, answer says ${answer.captured?.imageType}`);
  return {
    nonce: answer.nonce,
    ack: answer.ackMs >= 0,
    ackMs: answer.ackMs,
    captured: answer.captured as CaptureAnswer['captured'],
    answerMs: answer.answerMs,
    bytes: answer.base64 ? Buffer.from(answer.base64, 'base64') : null,
    frameWidth: answer.frameWidth,
    frameHeight: answer.frameHeight,
  };
}
