import type { Manifest } from './manifest.schema.js';

/**
 * Advisory notes never stop a deploy. Codes are stable (tools and tests key on them); the
 * message is a sentence for a person and may change.
 */
export const NOTE_CODES = [
  'output-index-missing',
  'no-story',
  'dockerfile-no-from',
  'workdir-not-app',
  'cmd-fetches-packages',
  'runtime-not-node-24',
  'point-not-found',
  'writes-outside-app',
  'volume-not-writable',
  'folder-not-writable',
] as const;
export type NoteCode = (typeof NOTE_CODES)[number];

export interface ManifestNote {
  code: NoteCode;
  message: string;
}

/** Notes that follow from the manifest alone, for the platform as well as the command-line tool. */
export function manifestNotes(manifest: Manifest): ManifestNote[] {
  const notes: ManifestNote[] = [];
  if (!manifest.story || manifest.story.length === 0) {
    notes.push({
      code: 'no-story',
      message: 'The manifest has no story, so the room opens without a guided tour.',
    });
  }
  return notes;
}
