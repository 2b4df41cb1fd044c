import type { Readable } from 'node:stream';
import type { CopySpec } from '../../services/contract/runner/copy-spec.js';

// The runner's only door to a container engine. DockerEngine (docker-engine.ts) speaks the
// Docker Engine API, which podman serves too; another engine (containerd, a VM pool) would be
// a second implementation of this interface, as trigger.dev's workload manager keeps its.

export interface ContainerState {
  id: string;
  status: 'created' | 'running' | 'paused' | 'exited' | 'other';
  exitCode: number | null;
  oomKilled: boolean;
  labels: Record<string, string>;
  /** The copy's address on its own network, when it has one. */
  address: string | null;
}

export interface Listed {
  id: string;
  status: ContainerState['status'];
  labels: Record<string, string>;
}

export class EngineError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
    this.name = 'EngineError';
  }
}

/** What the runner asks of an engine: images, one network per copy, containers, and events. */
export interface Engine {
  ping(): Promise<void>;
  /** The image's id, or null when the engine does not hold it. */
  imageId(ref: string): Promise<string | null>;
  /** Loads an uncompressed docker-archive; resolves once the engine has read all of it. */
  loadImage(archive: Readable): Promise<string>;
  /** Points `ref` (`repo:tag`) at the image `id`, moving it from any image it named before. */
  tagImage(id: string, ref: string): Promise<void>;
  listImages(): Promise<{ id: string; tags: string[]; created: number }[]>;
  /** Untags `ref`, removing the image when nothing else holds it; false when it is gone or in use. */
  removeImage(ref: string): Promise<boolean>;
  /** The copy's own internal network from `pool`; its name. */
  createNetwork(copyId: string, labels: Record<string, string>, pool: string): Promise<string>;
  removeNetwork(name: string): Promise<void>;
  networksOf(runnerId: string): Promise<{ name: string; labels: Record<string, string> }[]>;
  /** Makes the copy's container, and its writable /app where the engine needs the host's help (podman). */
  createContainer(spec: CopySpec): Promise<string>;
  /** Unmounts and removes the copy's writable places on the host; resolves if there are none. */
  releaseWritable(runnerId: string, copyId: string): Promise<void>;
  /** Copies of this runner whose writable places are on the host, for the reconcile's sweep. */
  writableHeld(runnerId: string): Promise<string[]>;
  start(id: string): Promise<void>;
  pause(id: string): Promise<void>;
  unpause(id: string): Promise<void>;
  /** Removes a container whatever its state; resolves if it is already gone. */
  remove(id: string): Promise<void>;
  inspect(id: string, network?: string): Promise<ContainerState | null>;
  /** The last `lines` of a container's output (stdout and stderr interleaved); '' when it is gone. */
  logTail(id: string, lines: number): Promise<string>;
  /** Every container carrying this runner's label, in any state. */
  containersOf(runnerId: string): Promise<Listed[]>;
  /** The engine's event stream for this runner's containers. */
  events(runnerId: string, since?: number): Promise<NodeJS.ReadableStream>;
}
