import type { CoarseDevice } from '../../data/room-events.sql.js';

// The kind of device a viewer came on, from the browser's user agent: enough to tell a phone
// from a laptop in a journey or a forwarded link, and nothing finer (no model, no version).

export function coarseDeviceOf(userAgent: string | undefined): CoarseDevice | null {
  if (!userAgent) return null;
  if (/iPad|Tablet|PlayBook|Silk|Kindle/i.test(userAgent) || (/Android/i.test(userAgent) && !/Mobile/i.test(userAgent))) return 'tablet';
  if (/Mobi|iPhone|iPod|Android|Windows Phone/i.test(userAgent)) return 'phone';
  return 'desktop';
}
