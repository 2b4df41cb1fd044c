// The picture's bytes: PNG, else WebP when the PNG is too large. Part of frame-helper.js.
import type { CaptureAnswer } from '../frame-messages.js';

/** What encoding needs of a canvas (a real one, or a test's). */
type Encodable = Pick<HTMLCanvasElement, 'toBlob' | 'width' | 'height'>;

/** The canvas as `type`; a SecurityError when the canvas is tainted. */
const encode = (canvas: Encodable, type: string, quality?: number) =>
  new Promise<Blob>((resolve, reject) => {
    canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error('no blob'))), type, quality);
  });

/** The picture within `maxBytes`: PNG, else WebP at 0.8 then 0.6. */
export async function encodeWithin(canvas: Encodable, maxBytes: number): Promise<CaptureAnswer> {
  const tries: ['image/png' | 'image/webp', number?][] = [['image/png'], ['image/webp', 0.8], ['image/webp', 0.6]];
  for (const [type, quality] of tries) {
    const blob = await encode(canvas, type, quality);
    // A browser without a WebP encoder gives PNG instead: no use trying it.
    if (blob.type !== type) continue;
    if (blob.size <= maxBytes) return { ok: true, blob, imageType: type, width: canvas.width, height: canvas.height };
  }
  return { ok: false, note: 'too-large' };
}
