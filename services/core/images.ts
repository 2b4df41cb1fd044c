import sharp from 'sharp';
import { refused } from './errors.js';

// Images people send (comment screenshots, logos; covers and photos later) are judged by their
// bytes, never by a name or a declared type, and stored only as re-encoded here: what the
// platform serves back is sharp's own output, with no metadata of the sender's (EXIF with its
// GPS position, ICC profiles, text chunks) and nothing a decoder elsewhere could trip on.
//
// The order of the checks is the point: the byte limit first, then the header alone (type,
// width and height, read without decoding a pixel), and only an image whose header is within
// every limit is decoded. A decompression bomb (a tiny file declaring 60000×60000) is refused
// on its header; sharp's own pixel limit stays on the decode as a second wall.

export type ImageType = 'image/png' | 'image/webp' | 'image/jpeg';

const formatTypes: Record<string, ImageType> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

/** Why an image was not taken, in words for the person who sent it. */
export class ImageRefused extends Error {}

export interface CheckedImage {
  bytes: Buffer;
  type: ImageType;
  width: number;
  height: number;
}

export interface ImageRules {
  types: ImageType[];
  maxBytes: number;
  /** Most pixels a side. */
  maxSide: number;
  /** Fewest pixels a side. */
  minSide?: number;
  /** How many times longer one side may be than the other. */
  maxAspect?: number;
}

/** The logo of a brand (spec 2.8 and 8): PNG, JPEG or WebP, 256 KB, 16×16 to 2048×2048, at most 8:1. */
export const logoRules: ImageRules = { types: ['image/png', 'image/jpeg', 'image/webp'], maxBytes: 256 * 1024, maxSide: 2048, minSide: 16, maxAspect: 8 };

/** The width, height and type the header declares; nothing is decoded. */
async function headerOf(bytes: Buffer, types: ImageType[]) {
  // No pixel limit here: the header is only read, and the limits are checked on what it declares.
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata().catch(() => null);
  const type = meta?.format ? formatTypes[meta.format] : undefined;
  if (!meta || !type || !types.includes(type)) throw new ImageRefused(`not an image of type ${types.join(', ')}`);
  if (!meta.width || !meta.height) throw new ImageRefused('the image declares no size');
  return { type, width: meta.width, height: meta.height };
}

function checkSize(width: number, height: number, rules: ImageRules) {
  const size = `${width}×${height} pixels`;
  if (width > rules.maxSide || height > rules.maxSide) throw new ImageRefused(`the image is ${size}; at most ${rules.maxSide} pixels a side are taken`);
  if (rules.minSide && (width < rules.minSide || height < rules.minSide)) throw new ImageRefused(`the image is ${size}; at least ${rules.minSide} pixels a side are needed`);
  if (rules.maxAspect && Math.max(width, height) > rules.maxAspect * Math.min(width, height)) {
    throw new ImageRefused(`the image is ${size}; one side may be at most ${rules.maxAspect} times the other`);
  }
}

/**
 * `bytes` re-encoded in their own format, when they are a whole image of one of `rules.types`
 * within its limits; ImageRefused, saying which limit, otherwise.
 */
export async function reencodeImage(bytes: Buffer, rules: ImageRules): Promise<CheckedImage> {
  if (bytes.length === 0) throw new ImageRefused('the image is empty');
  if (bytes.length > rules.maxBytes) throw new ImageRefused(`the image is ${bytes.length} bytes; at most ${rules.maxBytes} are taken`);
  const header = await headerOf(bytes, rules.types);
  checkSize(header.width, header.height, rules);
  // rotate(): a photo's EXIF orientation is applied to the pixels, since the EXIF itself goes.
  const image = sharp(bytes, { limitInputPixels: rules.maxSide * rules.maxSide, failOn: 'error', animated: false }).rotate();
  const encoded = header.type === 'image/png' ? image.png({ compressionLevel: 6 }) : header.type === 'image/webp' ? image.webp({ quality: 90 }) : image.jpeg({ quality: 90 });
  // A truncated or corrupt file passes the header and fails here.
  const out = await encoded.toBuffer({ resolveWithObject: true }).catch(() => {
    throw new ImageRefused('the image could not be decoded');
  });
  return { bytes: out.data, type: header.type, width: out.info.width, height: out.info.height };
}

/**
 * `reencodeImage`, refused as the api answers an image that does not do: 422 `file`, naming
 * `what` ("the logo", "the photo", a build file's path) and the limit it missed.
 */
export async function reencodeOrRefuse(bytes: Buffer, rules: ImageRules, what: string): Promise<CheckedImage> {
  try {
    return await reencodeImage(bytes, rules);
  } catch (err) {
    throw err instanceof ImageRefused ? refused(422, 'file', `${what}: ${err.message}`) : err;
  }
}
