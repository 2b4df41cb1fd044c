import closeWithGrace from 'close-with-grace';
import { loadConfig } from '../services/core/config.js';
import { createLogger } from '../services/core/log.js';
import { buildRunner, dockerFrom } from './app.js';

const config = loadConfig();
const log = createLogger({ name: 'runner', level: config.LOG_LEVEL, pretty: config.NODE_ENV !== 'production' });
const docker = dockerFrom(config.DOCKER_HOST);
const app = buildRunner({ docker, log });

// Copies are left running on shutdown: the next runner adopts them by their labels.
closeWithGrace({ delay: 10_000 }, async ({ err }) => {
  if (err) log.error({ err }, 'closing after an error');
  await app.close();
});

await app.listen({ port: config.RUNNER_PORT, host: '127.0.0.1' });
