import { describe, expect, it } from 'vitest';
import { DATAPLANE_LIMIT_DEFAULTS, dataplaneLimits } from '../../infra/local/dataplane.mjs';
import { loadConfig } from '../../services/core/infra/config.js';

// The data plane's limits are read where HAProxy's config is rendered (infra/local/dataplane.mjs,
// Node builtins only, before `npm ci`) and documented with the platform's other settings
// (services/core/infra/config.ts): one set of defaults, and the same reading of the same variables.

const base = { DATABASE_URL: 'postgres://x', REDIS_URL: 'redis://x', APP_SECRET: 'a'.repeat(64) };

describe('the data plane limits', () => {
  it('have the same defaults in the renderer and in the config', () => {
    const config = loadConfig(base);
    expect({
      maxConnPerSource: config.DATAPLANE_MAX_CONN_PER_SOURCE,
      maxConnPerCopy: config.DATAPLANE_MAX_CONN_PER_COPY,
      copyRequestsPer10s: config.DATAPLANE_COPY_REQUESTS_PER_10S,
      tunnelIdleS: config.DATAPLANE_TUNNEL_IDLE_S,
      uncappedSources: [],
    }).toEqual(DATAPLANE_LIMIT_DEFAULTS);
    expect(dataplaneLimits({})).toEqual(DATAPLANE_LIMIT_DEFAULTS);
  });

  it('are read from the same variables', () => {
    const env = {
      DATAPLANE_MAX_CONN_PER_SOURCE: '7',
      DATAPLANE_MAX_CONN_PER_COPY: '3',
      DATAPLANE_COPY_REQUESTS_PER_10S: '50',
      DATAPLANE_TUNNEL_IDLE_S: '9',
      DATAPLANE_UNCAPPED_SOURCES: '10.0.0.0/8, 192.0.2.7',
    };
    expect(dataplaneLimits(env)).toEqual({
      maxConnPerSource: 7,
      maxConnPerCopy: 3,
      copyRequestsPer10s: 50,
      tunnelIdleS: 9,
      uncappedSources: ['10.0.0.0/8', '192.0.2.7'],
    });
    expect(loadConfig({ ...base, ...env }).DATAPLANE_MAX_CONN_PER_COPY).toBe(3);
    expect(() => dataplaneLimits({ DATAPLANE_MAX_CONN_PER_COPY: '0' })).toThrow(/DATAPLANE_MAX_CONN_PER_COPY/);
  });
});
