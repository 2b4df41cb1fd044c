import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';
import { Readable } from 'node:stream';
import { loadConfig } from '../../services/core/infra/config.js';
import { createLogger } from '../../services/core/infra/log.js';
import { BRIDGE_PREFIX } from '@demo-rooms/contract/runner';
import { testEnv } from '../../test/support/services.js';
import { runnerSettings } from '../service/runner-context.js';
import { demoBundle } from '../../test/support/runner/demo-bundle.js';
import { copyEngineConformance } from '../../test/support/runner/copy-engine-conformance.js';
import { dockerFrom } from './docker/docker-calls.js';
import { DockerEngine } from './docker-engine.js';

// The Docker engine (podman's socket here) against the promises every copy engine keeps.

copyEngineConformance('Docker', async () => {
  const config = loadConfig({ ...(testEnv() as unknown as Record<string, string>), RUNNER_ID: `t-${randomUUID().slice(0, 8)}` });
  const settings = runnerSettings(config);
  const bundle = await demoBundle();
  const make = () =>
    new DockerEngine(dockerFrom(config.DOCKER_HOST), {
      concurrency: settings.engineConcurrency,
      writableDir: settings.writableDir,
      subnets: settings.subnets,
    });
  const buildId = randomUUID();
  const tag = `localhost/build-${buildId}:latest`;
  const log = createLogger({ name: 'engine-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
  return {
    runnerId: settings.runnerId,
    make,
    build: {
      buildId,
      tag,
      recordedId: null,
      maxBytes: settings.maxImageBytes,
      bundle: async () => ({ body: Readable.from([bundle]), size: bundle.length }),
    },
    // The host guard is the Docker engine's own (a HostEngine's), not the CopyEngine's.
    secure: async (engine) => (await engine.guardHost({ mode: settings.hostGuard, iptables: settings.iptables, log })).installed,
    holds: async (engine, image) => Boolean(await engine.imageId(image)),
    log,
    hostAddresses: (guarded) =>
      Object.entries(networkInterfaces())
        .filter(([name]) => name !== 'lo' && (guarded || !name.startsWith(BRIDGE_PREFIX)))
        .flatMap(([, addrs]) => (addrs ?? []).filter((a) => a.family === 'IPv4').map((a) => a.address)),
    close: async () => {
      await make()
        .removeImage(tag)
        .catch(() => {});
    },
  };
});
