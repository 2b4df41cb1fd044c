import sharp from 'sharp';

// Images people send (comment screenshots today; logos, covers and photos later) are judged by
// their bytes, never by a name or a declared type, and stored only as re-encoded here: what the
// platform serves back is sharp's own output, with no metadata of the sender's (EXIF, ICC
// profiles, text chunks) and nothing a decoder elsewhere could trip on.

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

/**
 * `bytes` re-encoded in their own format, when they are a whole image of one of `types`, at most
 * `maxBytes` long and `maxSide` pixels a side; ImageRefused otherwise.
 */
export async function reencodeImage(bytes: Buffer, rules: { types: ImageType[]; maxBytes: number; maxSide: number }): Promise<CheckedImage> {
  if (bytes.length === 0) throw new ImageRefused('the image is empty');
  if (bytes.length > rules.maxBytes) throw new ImageRefused(`the image is ${bytes.length} bytes; at most ${rules.maxBytes} are taken`);
  const image = sharp(bytes, { limitInputPixels: rules.maxSide * rules.maxSide, failOn: 'error', animated: false });
  const meta = await image.metadata().catch(() => null);
  const type = meta?.format ? formatTypes[meta.format] : undefined;
  if (!meta || !type || !rules.types.includes(type)) throw new ImageRefused(`not an image of type ${rules.types.join(', ')}`);
  if (!meta.width || !meta.height || meta.width > rules.maxSide || meta.height > rules.maxSide) {
    throw new ImageRefused(`the image must be at most ${rules.maxSide} pixels a side`);
  }
  const encoded = type === 'image/png' ? image.png({ compressionLevel: 6 }) : type === 'image/webp' ? image.webp({ quality: 90 }) : image.jpeg({ quality: 90 });
  // A truncated or corrupt file passes metadata() (it reads the header only) and fails here.
  const out = await encoded.toBuffer({ resolveWithObject: true }).catch(() => {
    throw new ImageRefused('the image could not be decoded');
  });
  return { bytes: out.data, type, width: out.info.width, height: out.info.height };
}
