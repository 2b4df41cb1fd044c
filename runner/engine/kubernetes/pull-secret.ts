import type { V1Secret } from '@kubernetes/client-node';
import { LABEL } from '@demo-rooms/contract/runner';

// A workspace's pull secret: what a node shows the platform's registry to pull that workspace's
// pushed images (issue 32), and nothing else. One per workspace in the copies' namespace, shared
// by its copies and replaced before its credential expires; a copy's pod names only its own
// workspace's secret, so a pod can never pull another workspace's image.

/** A registry login the platform's token endpoint accepts, pull-only, for one workspace's repositories. */
export interface PullCredential {
  username: string;
  password: string;
  /** When the registry stops accepting it. */
  expiresAt: Date;
}

export const pullSecretName = (workspaceId: string) => `pull-${workspaceId}`;

/** The annotation that says when the secret's credential expires (ISO 8601), to replace it before. */
export const EXPIRES_ANNOTATION = 'rooms.dev/expires-at';

export function pullSecret(workspaceId: string, namespace: string, registryHost: string, credential: PullCredential): V1Secret {
  const { username, password } = credential;
  const config = { auths: { [registryHost]: { username, password, auth: Buffer.from(`${username}:${password}`).toString('base64') } } };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/dockerconfigjson',
    metadata: {
      name: pullSecretName(workspaceId),
      namespace,
      labels: { [LABEL.workspace]: workspaceId },
      annotations: { [EXPIRES_ANNOTATION]: credential.expiresAt.toISOString() },
    },
    immutable: false,
    data: { '.dockerconfigjson': Buffer.from(JSON.stringify(config)).toString('base64') },
  };
}
