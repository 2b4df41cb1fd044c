import type { V1Pod } from '@kubernetes/client-node';
import { containerName, labelsOf, COPY_HOST, COPY_USER, STOP_TIMEOUT_S, type CopySpec } from '@demo-rooms/contract/runner';

// A copy as a Kubernetes pod (issue 33): the same hardening as a container of the Docker engine
// (services/contract/runner/docker-create-options.ts), in the pod's words. Pure, so every field
// can be read and tested in one place (copy-pod.test.ts checks it against Kubernetes' schema).

/** The copy's own container, and the one that seeds its writable /app from the image. */
export const COPY_CONTAINER = 'copy';
export const SEED_CONTAINER = 'seed-app';
/**
 * The gate a copy's pod is created behind: it exists (the runner records it: record before act)
 * but no node runs it until the engine lifts the gate (schedulingGates, GA in Kubernetes 1.30).
 * A start abandoned at its record leaves a pod that never ran, as Docker's created container.
 */
export const RECORD_GATE = 'rooms.dev/recorded';

/** The pod's name: unique per copy, so a retry never meets another copy's (one label-selected NetworkPolicy, infra/k8s/copies.yaml, guards them all). */
export const podName = containerName;

const [uid, gid] = COPY_USER.split(':').map(Number);

/** Kubernetes label values: at most 63 characters, alphanumerics at both ends, `-_.` inside. */
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]{0,61})?[A-Za-z0-9])?$/;

/** The copy's labels (the ones the reconcile reads), refused when Kubernetes would refuse them. */
export function podLabels(spec: CopySpec): Record<string, string> {
  const labels = labelsOf(spec);
  for (const [key, value] of Object.entries(labels)) {
    if (!LABEL_VALUE.test(value)) throw new Error(`the copy's label ${key} is not a Kubernetes label value: ${JSON.stringify(value)}`);
  }
  return labels;
}

export interface PodPlace {
  namespace: string;
  /** The image by digest (`host/repository@sha256:…`): a tag could move, a digest cannot. */
  image: string;
  /** The workspace's pull secret (pull-secret.ts), or null when nodes pull without one. */
  pullSecret: string | null;
}

/** Bytes of a container's log and anything else a node keeps on disk for it: logs rotate well under this. */
const EPHEMERAL_STORAGE = '128Mi';

export function copyPod(spec: CopySpec, place: PodPlace): V1Pod {
  // PORT and HOST are the runner's: run.env cannot move the copy off the port it is probed on.
  const env = { ...spec.env, PORT: String(spec.port), HOST: COPY_HOST };
  // Requests equal limits (the Guaranteed class): a copy gets what it was promised, and is the last
  // to be evicted when its node runs short. Memory has no swap on Kubernetes nodes by default.
  const resources = {
    requests: { memory: `${spec.memoryMb}Mi`, cpu: `${Math.round(spec.cpus * 1000)}m`, 'ephemeral-storage': EPHEMERAL_STORAGE },
    limits: { memory: `${spec.memoryMb}Mi`, cpu: `${Math.round(spec.cpus * 1000)}m`, 'ephemeral-storage': EPHEMERAL_STORAGE },
  };
  const securityContext = {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: gid,
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  };
  // Each writable place a tmpfs of writableMb, charged to the copy's memory: past it ENOSPC, and
  // nothing of it reaches the node's disk or outlives the pod.
  const writable = (name: string) => ({ name, emptyDir: { medium: 'Memory', sizeLimit: `${spec.writableMb}Mi` } });
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: podName(spec.copyId), namespace: place.namespace, labels: podLabels(spec) },
    spec: {
      schedulingGates: [{ name: RECORD_GATE }],
      restartPolicy: 'Never',
      // No credentials of the cluster and no addresses of its services in the copy's environment.
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      // The pod's pause process is PID 1 and reaps zombies, as Docker's `Init: true` does.
      shareProcessNamespace: true,
      hostname: `copy-${spec.copyId.replace(/-/g, '').slice(0, 12)}`,
      terminationGracePeriodSeconds: STOP_TIMEOUT_S,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: gid,
        fsGroup: gid,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      ...(place.pullSecret ? { imagePullSecrets: [{ name: place.pullSecret }] } : {}),
      // /app holds the image's app files, writable (as on the Docker engine): the image's /app is
      // copied into the copy's tmpfs before the copy starts, so the image's /app counts against
      // writableMb, as on Docker's tmpfs /app. The copy needs a shell and cp in its image for this
      // (the offline base image's busybox has both); an image without /app starts with it empty.
      initContainers: [
        {
          name: SEED_CONTAINER,
          image: place.image,
          imagePullPolicy: 'IfNotPresent',
          command: ['/bin/sh', '-c', 'if [ -d /app ]; then cp -a /app/. /seed/; fi'],
          securityContext,
          resources,
          volumeMounts: [{ name: 'app', mountPath: '/seed' }],
        },
      ],
      containers: [
        {
          name: COPY_CONTAINER,
          image: place.image,
          imagePullPolicy: 'IfNotPresent',
          // run.start replaces the image's CMD, as `docker run image cmd…` does; an ENTRYPOINT stays.
          ...(spec.start ? { args: spec.start } : {}),
          workingDir: '/app',
          env: Object.entries(env).map(([name, value]) => ({ name, value })),
          ports: [{ name: 'http', containerPort: spec.port, protocol: 'TCP' }],
          securityContext,
          resources,
          volumeMounts: [
            { name: 'app', mountPath: '/app' },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [writable('app'), writable('tmp')],
    },
  };
}
