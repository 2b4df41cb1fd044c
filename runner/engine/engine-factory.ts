import { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../../services/core/infra/config.js';
import type { Logger } from '../../services/core/infra/log.js';
import { registryOf, workspacePullLogin } from '../../services/core/infra/registry/registry-pull.js';
import type { RunnerSettings } from '../service/runner-context.js';
import type { CopyEngine } from './copy-engine.js';
import type { HostEngine } from './host-engine.js';
import { dockerFrom } from './docker/docker-calls.js';
import { DockerEngine } from './docker-engine.js';
import { KubernetesEngine, runnerPodSelector } from './kubernetes/kubernetes-engine.js';
import { PodReflector } from './kubernetes/pod-reflector.js';

// The engine RUNNER_ENGINE names, made from the config: the runner's main builds nothing else of it.
// `host` is the engine's side on the runner's own host (host-engine.ts): the Docker engine itself,
// none for Kubernetes.

export function createEngine(config: Config, settings: RunnerSettings, log: Logger): { engine: CopyEngine; host: HostEngine | null } {
  if (config.RUNNER_ENGINE === 'docker') {
    const docker = new DockerEngine(dockerFrom(config.DOCKER_HOST), {
      concurrency: settings.engineConcurrency,
      writableDir: settings.writableDir,
      subnets: settings.subnets,
    });
    return { engine: docker, host: docker };
  }
  // KUBECONFIG, else ~/.kube/config, else the pod's service account (client-node's order).
  const kc = new KubeConfig();
  kc.loadFromDefault();
  const namespace = config.RUNNER_K8S_NAMESPACE ?? kc.getContextObject(kc.getCurrentContext())?.namespace ?? 'default';
  const registry = registryOf(config);
  const engine = new KubernetesEngine({
    kc,
    namespace,
    watch: new PodReflector({ kc, namespace, labelSelector: runnerPodSelector(settings.runnerId), log }),
    registryHost: config.RUNNER_K8S_REGISTRY_HOST ?? (registry ? new URL(registry.url).host : null),
    ...(registry ? { pullCredential: (workspaceId: string) => workspacePullLogin(registry.key, workspaceId) } : {}),
  });
  return { engine, host: null };
}
