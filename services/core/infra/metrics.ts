import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

// One Prometheus registry per process (api, workers, runner each serve their own at
// /ops/metrics). Metrics are defined here, once, so that a name cannot drift between the code
// that updates it and the dashboards that read it. A process that never touches a metric
// still exports it at zero, which is what a scraper expects.
export const registry = new Registry();
collectDefaultMetrics({ register: registry });

const seconds = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'API request latency by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: seconds,
  registers: [registry],
});

export const queueDepth = new Gauge({
  name: 'queue_jobs',
  help: 'Jobs in each BullMQ queue by state',
  labelNames: ['queue', 'state'] as const,
  registers: [registry],
});

export const jobDuration = new Histogram({
  name: 'queue_job_duration_seconds',
  help: 'Time a job took by queue and outcome',
  labelNames: ['queue', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [registry],
});

export const unpackBytes = new Counter({
  name: 'unpack_bytes_total',
  help: 'Bytes of static files stored by unpack jobs',
  registers: [registry],
});

export const copies = new Gauge({
  name: 'runner_copies',
  help: 'Container copies on this runner by state (starting, running, paused, held_back)',
  labelNames: ['state'] as const,
  registers: [registry],
});

export const coldStart = new Histogram({
  name: 'runner_cold_start_seconds',
  help: 'Viewer asks to health 200, per copy',
  buckets: [0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 30],
  registers: [registry],
});

export const failedStarts = new Counter({
  name: 'runner_failed_starts_total',
  help: 'Copies that could not start, by reason (health, exited, oom, image, engine, interrupted, deadline)',
  labelNames: ['reason'] as const,
  registers: [registry],
});

export const arrivalsDeferred = new Counter({
  name: 'runner_arrivals_deferred_total',
  help: 'New viewers told to ask again at once because the host held RUNNER_ARRIVALS_IN_FLIGHT undecided',
  registers: [registry],
});

export const orphanCopiesRemoved = new Counter({
  name: 'runner_orphan_copies_removed_total',
  help: 'Copies of this runner found in the engine with no live record, removed by the reconcile',
  registers: [registry],
});

/** Issue 46: each difference the usage reconciliation found, by kind (differs, unowned, never-ran); a copy is counted each pass that finds it. */
export const usageDifferences = new Counter({
  name: 'runner_usage_differences_total',
  help: "Copies whose billed seconds differed from the engine's record by more than a second, by kind",
  labelNames: ['kind'] as const,
  registers: [registry],
});

/** Issue 46: engine seconds billed to a workspace for copies no record owned. */
export const unownedSecondsBilled = new Counter({
  name: 'runner_unowned_seconds_billed_total',
  help: 'Engine seconds of copies no record owned, billed to the workspace their labels name',
  registers: [registry],
});

export const shedRequests = new Counter({
  name: 'http_shed_total',
  help: 'Requests answered 503 because the process was under pressure, by cause (eventLoopDelay, heapUsedBytes, rssBytes)',
  labelNames: ['cause'] as const,
  registers: [registry],
});

export const dataplaneRefused = new Counter({
  name: 'dataplane_refused_total',
  help: "Viewer connections and requests this host's data plane refused, by limit (source_connections, copy_connections, copy_rate)",
  labelNames: ['limit'] as const,
  registers: [registry],
});
