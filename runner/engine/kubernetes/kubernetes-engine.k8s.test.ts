import { randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { readFileSync } from 'node:fs';
import { KubeConfig, NetworkingV1Api, type V1NetworkPolicy } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describe, it } from 'vitest';
import { LABEL } from '@demo-rooms/contract/runner';
import { createLogger } from '../../../services/core/infra/log.js';
import { copyEngineConformance } from '../../../test/support/runner/copy-engine-conformance.js';
import { KubernetesEngine, runnerPodSelector } from './kubernetes-engine.js';
import { PodReflector } from './pod-reflector.js';

// The Kubernetes engine against the promises every copy engine keeps, on a real cluster: run by
// `KUBECONFIG=… K8S_TEST_IMAGE=… npm run test:kubernetes` (docs/kubernetes.md says how to get the
// demo image into a registry the cluster pulls from). No API server runs on the machines this
// project is built on, so without KUBECONFIG it is one skipped test saying so.
//   K8S_TEST_IMAGE         the demo image (test/support/runner/demo) by digest: host/repository@sha256:…
//   K8S_TEST_NAMESPACE     where its pods go (default `default`); the suite removes what it made
//   K8S_TEST_INGRESS_CIDR  this machine's address range as the pods see it: the suite reaches the
//                          copies from here, so the copies' NetworkPolicy lets it in
// The engine makes no NetworkPolicy: the shipped one (infra/k8s/copies.yaml, `copies`) is applied to
// the namespace for this suite's copies, with this machine in place of the runner's pod.

/** The shipped copies' policy, for this suite's copies alone, letting in `cidr` instead of the runner's pod. */
function suitePolicy(namespace: string, runnerId: string, cidr: string | undefined): V1NetworkPolicy {
  const copiesYaml = new URL('../../../infra/k8s/copies.yaml', import.meta.url);
  const shipped = parseAllDocuments(readFileSync(copiesYaml, 'utf8'))
    .map((d) => d.toJS() as V1NetworkPolicy & { spec: { ingress: { ports: unknown }[] } })
    .find((o) => o.kind === 'NetworkPolicy' && o.metadata?.name === 'copies')!;
  return {
    ...shipped,
    metadata: { name: `copies-${runnerId}`, namespace },
    spec: {
      ...shipped.spec,
      podSelector: { ...shipped.spec.podSelector, matchLabels: { [LABEL.runner]: runnerId } },
      // `_from`: client-node's name for `from`; its serializer sends `from`. A label no pod carries,
      // so only this machine reaches the copies.
      ingress: [
        {
          _from: [{ podSelector: { matchLabels: { 'rooms.test-reacher': runnerId } } }, ...(cidr ? [{ ipBlock: { cidr } }] : [])],
          ports: shipped.spec.ingress[0].ports,
        },
      ],
    } as V1NetworkPolicy['spec'],
  };
}

const kubeconfig = process.env.KUBECONFIG;

if (!kubeconfig) {
  describe.skip("the copy engine's promises: Kubernetes", () => {
    it('set KUBECONFIG to a cluster (kind, k3s) to run', () => {});
  });
} else {
  copyEngineConformance('Kubernetes', async () => {
    const image = process.env.K8S_TEST_IMAGE ?? '';
    const ref = /^([^/]+)\/(.+)@(sha256:[0-9a-f]{64})$/.exec(image);
    if (!ref) throw new Error('set K8S_TEST_IMAGE to the demo image by digest (host/repository@sha256:…): docs/kubernetes.md');
    const [, registryHost, repository, digest] = ref;
    const namespace = process.env.K8S_TEST_NAMESPACE ?? 'default';
    const runnerId = `t-${randomUUID().slice(0, 8)}`;
    const log = createLogger({ name: 'engine-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const engines: KubernetesEngine[] = [];
    const make = () => {
      const kc = new KubeConfig();
      kc.loadFromDefault();
      const engine = new KubernetesEngine({
        kc,
        namespace,
        watch: new PodReflector({ kc, namespace, labelSelector: runnerPodSelector(runnerId), log }),
        registryHost,
      });
      engines.push(engine);
      return engine;
    };
    const kc = new KubeConfig();
    kc.loadFromDefault();
    const server = new URL(kc.getCurrentCluster()?.server ?? 'https://127.0.0.1');
    const net = kc.makeApiClient(NetworkingV1Api);
    const policy = suitePolicy(namespace, runnerId, process.env.K8S_TEST_INGRESS_CIDR);
    return {
      runnerId,
      make,
      build: {
        buildId: randomUUID(),
        tag: `unused-${runnerId}`,
        recordedId: null,
        maxBytes: 0,
        pushed: { repository, digest },
        bundle: () => Promise.reject(new Error('the Kubernetes engine pulls; it never reads a bundle')),
      },
      // No host to guard: the copies' NetworkPolicy is the guard, applied before any copy starts.
      secure: async () => {
        await net.createNamespacedNetworkPolicy({ namespace, body: policy });
        return true;
      },
      log,
      // No egress at all: this machine's addresses and the API server's are as unreachable as the world.
      hostAddresses: () => [
        ...Object.entries(networkInterfaces())
          .filter(([name]) => name !== 'lo')
          .flatMap(([, addrs]) => (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address)),
        ...(isIP(server.hostname) === 4 ? [server.hostname] : []),
      ],
      pidsLimited: false,
      close: async () => {
        for (const engine of engines) await engine.close();
        await net.deleteNamespacedNetworkPolicy({ name: policy.metadata!.name!, namespace }).catch(() => {});
      },
    };
  });
}
