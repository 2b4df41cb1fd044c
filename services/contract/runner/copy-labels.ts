// Every copy's container and network carries these labels. The runner finds its own things by
// `rooms.runner` alone: podman storage is machine-wide, so other platforms' and other runners'
// containers are never adopted or removed.
export const LABEL = {
  copy: 'rooms.copy',
  build: 'rooms.build',
  project: 'rooms.project',
  workspace: 'rooms.workspace',
  runner: 'rooms.runner',
  /** On the never-started container that holds an image's files mounted for its copies' /app (the image id). */
  lower: 'rooms.lower',
} as const;

export interface CopyLabels {
  copyId: string;
  buildId: string;
  projectId: string;
  workspaceId: string;
  runnerId: string;
}

export function labelsOf(c: CopyLabels): Record<string, string> {
  return {
    [LABEL.copy]: c.copyId,
    [LABEL.build]: c.buildId,
    [LABEL.project]: c.projectId,
    [LABEL.workspace]: c.workspaceId,
    [LABEL.runner]: c.runnerId,
  };
}

/** Engine names of a copy's container and network: unique per copy, so a retry never meets a 409. */
export const containerName = (copyId: string) => `rc-${copyId}`;
export const networkName = (copyId: string) => `rc-${copyId}`;
/** The bridge interface of a copy's network: `rc` + 12 hex (Linux allows 15 characters). The host guard matches `rc+`. */
export const bridgeName = (copyId: string) => `rc${copyId.replace(/-/g, '').slice(0, 12)}`;
export const BRIDGE_PREFIX = 'rc';
/** The engine name of the container that holds an image's files mounted: one per image, per host. */
export const lowerName = (imageId: string) => `lower-${imageId.replace(/^sha256:/, '')}`;
