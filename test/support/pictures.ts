import sharp from 'sharp';

/**
 * A small screenshot as a viewer's frame would send it: a colour with a light mark in its corner.
 * Not one colour all over, which the room keeps as no picture (`blank`, services/core/rules/images.ts).
 */
export function screenshotPng(width = 64, height = 40, background = '#2f6fde'): Promise<Buffer> {
  const mark = { width: Math.max(1, width >> 2), height: Math.max(1, height >> 2), channels: 4 as const, background: '#ffffff' };
  return sharp({ create: { width, height, channels: 4, background } })
    .composite([{ input: { create: mark }, left: 0, top: 0 }])
    .png()
    .toBuffer();
}
