// APP_SECRET, OPS_TOKEN and COPY_TOKEN_KEY (the data plane's copy tokens): from the environment, else kept in files under the data dir so
// sessions and tokens survive restarts. Values are never printed.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { logger } from './lib.mjs';

const FILES = { APP_SECRET: 'app-secret', OPS_TOKEN: 'ops-token', COPY_TOKEN_KEY: 'copy-token-key' };

export function ensureSecrets(dataDir, log = logger('secrets')) {
  mkdirSync(dataDir, { recursive: true });
  const secrets = {};
  for (const [name, file] of Object.entries(FILES)) {
    const where = path.join(dataDir, file);
    if (process.env[name]) {
      secrets[name] = process.env[name];
      log(`${name} from the environment`);
    } else if (existsSync(where)) {
      chmodSync(where, 0o600); // a copied or restored file may have come with looser rights
      secrets[name] = readFileSync(where, 'utf8').trim();
    } else {
      secrets[name] = randomBytes(32).toString('hex');
      writeFileSync(where, secrets[name] + '\n', { mode: 0o600, flag: 'wx' });
      log(`${name} generated into ${where}`);
    }
  }
  return secrets;
}
