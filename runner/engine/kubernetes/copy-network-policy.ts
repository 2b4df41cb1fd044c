import type { V1NetworkPolicy, V1NetworkPolicyPeer } from '@kubernetes/client-node';
import { LABEL } from '../../../services/contract/runner/copy-labels.js';
import type { CopySpec } from '../../../services/contract/runner/copy-spec.js';
import { podLabels, podName } from './copy-pod.js';

// The isolation a copy's own /29 network gives it on the Docker engine, as a NetworkPolicy of its
// own: no egress at all (no other copy, no service of the cluster, no DNS, no metadata address, no
// world), and ingress only from the data plane (and the runner, in the same pod) on the copy's port.
// A NetworkPolicy is only as good as the cluster's network plugin: one that does not enforce them
// (flannel alone, older kindnet) leaves copies open, and the API cannot tell (docs/kubernetes.md).

/** Who may reach copies: the pods of the data plane, by labels, in their namespace when it is another. */
export interface CopyReachers {
  podLabels: Record<string, string>;
  namespace?: string;
  /** Address ranges that may reach copies too (a test host outside the cluster); none in production. */
  cidrs?: string[];
}

export function copyNetworkPolicy(spec: CopySpec, namespace: string, from: CopyReachers): V1NetworkPolicy {
  const proxy: V1NetworkPolicyPeer = {
    podSelector: { matchLabels: from.podLabels },
    ...(from.namespace ? { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': from.namespace } } } : {}),
  };
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name: podName(spec.copyId), namespace, labels: podLabels(spec) },
    spec: {
      podSelector: { matchLabels: { [LABEL.copy]: spec.copyId } },
      // Both listed: a policy type absent is no policy of that type; Egress with no rules is none allowed.
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        {
          // `_from`: client-node's name for `from` (a word of TypeScript); its serializer sends `from`.
          _from: [proxy, ...(from.cidrs ?? []).map((cidr) => ({ ipBlock: { cidr } }))],
          ports: [{ protocol: 'TCP', port: spec.port }],
        },
      ],
      egress: [],
    },
  };
}
