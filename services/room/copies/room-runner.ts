import type { Config } from '../../core/config.js';
import { createRunnerClient, type RunnerClient } from '../../../runner/client.js';

/** The room's client of the runner: RUNNER_URL, else the runner on this host. */
export function roomRunnerClient(config: Pick<Config, 'RUNNER_URL' | 'RUNNER_PORT' | 'APP_SECRET'>): RunnerClient {
  return createRunnerClient({ baseUrl: config.RUNNER_URL ?? `http://127.0.0.1:${config.RUNNER_PORT}`, appSecret: config.APP_SECRET });
}
