import { createHash } from 'node:crypto';

// The image manifest as this tool writes it (docker schema 2, layers uncompressed: a layer's
// digest is its diff id; issue 32). One writer for the push (push-image.ts) and for the engine's
// pull of an in-process image (serving-registry.ts), so both name the image by the same digest.

export const MEDIA = {
  manifest: 'application/vnd.docker.distribution.manifest.v2+json',
  config: 'application/vnd.docker.container.image.v1+json',
  layer: 'application/vnd.docker.image.rootfs.diff.tar',
};

export interface ImageManifest {
  configDigest: string;
  configSize: number;
  layers: { digest: string; size: number }[];
}

/** The manifest's bytes, digest and media type. */
export function manifestBytes(image: ImageManifest): { bytes: Buffer; digest: string; mediaType: string } {
  const bytes = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA.manifest,
      config: { mediaType: MEDIA.config, size: image.configSize, digest: image.configDigest },
      layers: image.layers.map((layer) => ({ mediaType: MEDIA.layer, size: layer.size, digest: layer.digest })),
    }),
  );
  return { bytes, digest: `sha256:${createHash('sha256').update(bytes).digest('hex')}`, mediaType: MEDIA.manifest };
}
