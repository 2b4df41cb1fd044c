import sharp from 'sharp';
import { refused } from './errors.js';
import { workSlots } from './work-slots.js';

// Images people send (comment screenshots, logos; covers and photos later) are judged by their
// bytes, never by a name or a declared type, and stored only as re-encoded here: what the
// platform serves back is sharp's own output, with no metadata of the sender's (EXIF with its
// GPS position, ICC profiles, text chunks) and nothing a decoder elsewhere could trip on.
//
// The order of the checks is the point: the byte limit first, then the header alone (type,
// width and height, read without decoding a pixel), and only an image whose header is within
// every limit is decoded. A decompression bomb (a tiny file declaring 60000×60000) is refused
// on its header; sharp's own pixel limit stays on the decode as a second wall.
//
// What a decode costs is set by pixels, not bytes (a 2.6 KB lossless WebP declaring 8192×8192
// cost 522 MB and 2.5 s, security-3 H1), so the header is judged on three counts before a pixel
// is decoded: pixels a side, pixels in all, and pixels per byte sent (no real picture of more
// than a megapixel carries over 1,000 pixels in each byte; a bomb carries tens of thousands).
// Then the decode itself is bounded: a use that stores a smaller picture than it takes shrinks
// while decoding (JPEG and WebP decode straight at the smaller size, PNG streams), decodes run
// one at a time in the process with a short queue (503 beyond it), and sharp keeps no cache.

// The cache holds decoded pixels of past operations: memory a sender's images should not keep.
sharp.cache(false);
// libvips threads per image: decodes are serialised below, and each should take one core, not all.
sharp.concurrency(1);

/** Above a megapixel, an image declaring more pixels than this per byte of its file is refused unread. */
export const MAX_PIXELS_PER_BYTE = 1000;
const RATIO_FLOOR = 1024 * 1024;

/**
 * Decodes of the whole process: one at a time (an at-limit WebP costs ~100 MB while encoding),
 * three waiting (four comments at once are all served), and 503 with Retry-After: 2 beyond. One
 * client (a viewer's address, a workspace) has at most one waiting, and clients take turns
 * (security review 4, L6): one posting back to back cannot keep the slot from the others.
 */
export const decodeSlots = workSlots({ running: 1, waiting: 3, perClient: 1, retryAfter: 2, what: 'images being read' });

export type ImageType = 'image/png' | 'image/webp' | 'image/jpeg';

const formatTypes: Record<string, ImageType> = { png: 'image/png', webp: 'image/webp', jpeg: 'image/jpeg' };

/** Why an image was not taken, in words for the person who sent it. */
export class ImageRefused extends Error {}

export interface CheckedImage {
  bytes: Buffer;
  type: ImageType;
  width: number;
  height: number;
  /** One colour all over (rules.judgeBlank): a picture of nothing. */
  blank?: boolean;
}

export interface ImageRules {
  types: ImageType[];
  maxBytes: number;
  /** Most pixels a side. */
  maxSide: number;
  /** Most pixels in all (width × height); `maxSide`² when not given. */
  maxPixels?: number;
  /** Longest side kept: a larger image is shrunk to fit as it is decoded. Unset, kept as sent. */
  storedSide?: number;
  /** Fewest pixels a side. */
  minSide?: number;
  /** How many times longer one side may be than the other. */
  maxAspect?: number;
  /** Say whether the image is one colour all over (CheckedImage.blank): a screenshot of nothing is no picture. */
  judgeBlank?: boolean;
}

/**
 * The logo of a brand (spec 2.8 and 8): PNG, JPEG or WebP, 256 KB, 16×16 to 2048×2048, at most
 * 8:1. The spec's sides already bound it to 4 MP, which is its pixel budget; kept at its size.
 */
export const logoRules: ImageRules = {
  types: ['image/png', 'image/jpeg', 'image/webp'],
  maxBytes: 256 * 1024,
  maxSide: 2048,
  maxPixels: 2048 * 2048,
  minSide: 16,
  maxAspect: 8,
};

/**
 * A comment's screenshot (the frame's viewport at scale 1, PNG or WebP): at most 4096 a side and
 * 16 MP, kept within 2560 a side (its pins are fractions of the picture, so a shrunk one still
 * shows where they point).
 */
export const screenshotRules = (maxBytes: number): ImageRules => ({
  types: ['image/png', 'image/webp'],
  maxBytes,
  maxSide: 4096,
  maxPixels: 4096 * 4096,
  storedSide: 2560,
  judgeBlank: true,
});

/** How far apart a channel's darkest and lightest pixel may be in a blank picture (lossy encodings dither a little). */
const BLANK_SPREAD = 3;

/** The width, height and type the header declares; nothing is decoded. */
async function headerOf(bytes: Buffer, types: ImageType[]) {
  // No pixel limit here: the header is only read, and the limits are checked on what it declares.
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  const type = meta?.format ? formatTypes[meta.format] : undefined;
  if (!meta || !type || !types.includes(type)) throw new ImageRefused(`not an image of type ${types.join(', ')}`);
  if (!meta.width || !meta.height) throw new ImageRefused('the image declares no size');
  return { type, width: meta.width, height: meta.height };
}

function checkSize(width: number, height: number, bytes: number, rules: ImageRules) {
  const size = `${width}×${height} pixels`;
  const pixels = width * height;
  if (width > rules.maxSide || height > rules.maxSide)
    throw new ImageRefused(`the image is ${size}; at most ${rules.maxSide} pixels a side are taken`);
  const maxPixels = rules.maxPixels ?? rules.maxSide * rules.maxSide;
  if (pixels > maxPixels) throw new ImageRefused(`the image is ${size}; at most ${maxPixels} pixels in all are taken`);
  if (pixels > RATIO_FLOOR && pixels > MAX_PIXELS_PER_BYTE * bytes) {
    throw new ImageRefused(
      `the image declares ${size} in ${bytes} bytes, more than a picture holds; at most ${MAX_PIXELS_PER_BYTE} pixels a byte are taken`,
    );
  }
  if (rules.minSide && (width < rules.minSide || height < rules.minSide))
    throw new ImageRefused(`the image is ${size}; at least ${rules.minSide} pixels a side are needed`);
  if (rules.maxAspect && Math.max(width, height) > rules.maxAspect * Math.min(width, height)) {
    throw new ImageRefused(`the image is ${size}; one side may be at most ${rules.maxAspect} times the other`);
  }
}

/**
 * `bytes` re-encoded in their own format, when they are a whole image of one of `rules.types`
 * within its limits; ImageRefused, saying which limit, otherwise. `client` is who sent them (a
 * viewer's address, a workspace): decodes are shared fairly between clients.
 */
export async function reencodeImage(bytes: Buffer, rules: ImageRules, client?: string): Promise<CheckedImage> {
  if (bytes.length === 0) throw new ImageRefused('the image is empty');
  if (bytes.length > rules.maxBytes) throw new ImageRefused(`the image is ${bytes.length} bytes; at most ${rules.maxBytes} are taken`);
  const header = await headerOf(bytes, rules.types);
  checkSize(header.width, header.height, bytes.length, rules);
  // Only now, within every limit, is it decoded: in its turn, one at a time in the process.
  return decodeSlots.run(() => decode(bytes, header.type, rules), client);
}

async function decode(bytes: Buffer, type: ImageType, rules: ImageRules): Promise<CheckedImage> {
  const limitInputPixels = rules.maxPixels ?? rules.maxSide * rules.maxSide;
  // rotate(): a photo's EXIF orientation is applied to the pixels, since the EXIF itself goes.
  let image = sharp(bytes, { limitInputPixels, failOn: 'error', animated: false }).rotate();
  if (rules.storedSide) image = image.resize(rules.storedSide, rules.storedSide, { fit: 'inside', withoutEnlargement: true });
  const encoded =
    type === 'image/png'
      ? image.png({ compressionLevel: 6 })
      : type === 'image/webp'
        ? image.webp({ quality: 90 })
        : image.jpeg({ quality: 90 });
  // A truncated or corrupt file passes the header and fails here.
  const out = await encoded.toBuffer({ resolveWithObject: true }).catch(() => {
    throw new ImageRefused('the image could not be decoded');
  });
  // Judged on the decoded pixels, in sharp's threads like the decode: every channel (alpha too) one value.
  const blank = rules.judgeBlank ? (await image.clone().stats()).channels.every((c) => c.max - c.min <= BLANK_SPREAD) : undefined;
  return { bytes: out.data, type, width: out.info.width, height: out.info.height, ...(blank === undefined ? {} : { blank }) };
}

/**
 * `reencodeImage`, refused as the api answers an image that does not do: 422 `file`, naming
 * `what` ("the logo", "the photo", a build file's path) and the limit it missed. A full decode
 * queue stays what it is: 503 `unavailable` with `retryAfter`.
 */
export async function reencodeOrRefuse(bytes: Buffer, rules: ImageRules, what: string, client?: string): Promise<CheckedImage> {
  try {
    return await reencodeImage(bytes, rules, client);
  } catch (err) {
    throw err instanceof ImageRefused ? refused(422, 'file', `${what}: ${err.message}`) : err;
  }
}
