import type { Logger } from '../../services/core/infra/log.js';

// What an engine that runs copies on the runner's own host does besides the CopyEngine
// (copy-engine.ts): it secures that host (the host guard) and keeps that host's images. The Docker
// engine (docker-engine.ts) is one; the Kubernetes engine is not: its nodes keep and collect their
// own images (the kubelet), and the copies' NetworkPolicy in infra/k8s/copies.yaml is its guard.
// The runner takes it beside the engine (RunnerDeps.host), null where there is no such host.

/** Whether copies may start on this host, after the engine secured it (the host guard). */
export interface HostGuardState {
  installed: boolean;
  copies: boolean;
  refusal: string | null;
}

/** The host's images, as the image collection reads and removes them (runner/images/image-store.ts). */
export interface HostImages {
  /** The image's id, or null when the host does not hold it. */
  imageId(ref: string): Promise<string | null>;
  /** Every image's tags and creation time (seconds since the epoch), for the image collection. */
  listImages(): Promise<{ id: string; tags: string[]; created: number }[]>;
  /** Untags `ref`, removing the image when nothing else holds it; false when it is gone or in use. */
  removeImage(ref: string): Promise<boolean>;
}

export interface HostEngine extends HostImages {
  /** Secures the host once at start, as `mode` asks; copies start only while the answer's `copies`. */
  guardHost(opts: { mode: 'auto' | 'on' | 'off'; iptables: string; log: Logger }): Promise<HostGuardState>;
}

/** The guard where copies do not run on the runner's host (Kubernetes): nothing to install, copies start. */
export const NO_HOST_TO_GUARD: HostGuardState = { installed: true, copies: true, refusal: null };
