import type { Build } from '@demo-rooms/contract';
import type { Manifest } from '@demo-rooms/contract/manifest';
import type { ReadImage } from '../registry/read-image.js';
import type { PushResult } from '../registry/push-image.js';
import type { Rehearsal } from './rehearsal.js';

/** What the kind-specific half of a deploy hands to the upload: the packed file and what to say about it. */
export interface Artefact {
  kind: 'static' | 'container';
  /** The gzipped archive on disk; empty for an image pushed to the platform's registry (`image`). */
  file: string;
  /**
   * A container image pushed at upload time instead of a bundle (issue 32): its tag in the local
   * engine, and the image as read for the scan (the layers to send wait on disk); for an image laid
   * in-process, its push already on its way (blobs then manifest, sent beside the rehearsal:
   * createBuild is what is left).
   */
  image?: { tag: string; read: ReadImage; pushed?: Promise<PushResult> };
  sizeBytes: number;
  /** The manifest as sent: defaults filled in, and a container's `run` taken from the image when pitch.json left it out. */
  manifest: Manifest;
  rehearsal: Rehearsal;
}

/** What a deploy found when the project's live build is already what it would upload. */
export interface Unchanged {
  unchanged: Build;
}
