// Types of the dataplane.mjs helpers that TypeScript imports (tests and the bench start a data plane).
export interface DataplaneOptions {
  dir: string;
  port: number;
  bind?: string;
  /** The room's host:port. */
  room: string;
  frameAncestors: string;
  tokenKey: string;
  threads?: number;
  /** Each unset one from its DATAPLANE_* variable, else its default (DATAPLANE_LIMIT_DEFAULTS). */
  limits?: Partial<DataplaneLimits>;
  /** Started as root, HAProxy runs as this uid (and the gid of the same number) once its files are read. */
  runAs?: number;
}
export interface DataplaneLimits {
  maxConnPerSource: number;
  maxConnPerCopy: number;
  copyRequestsPer10s: number;
  tunnelIdleS: number;
  uncappedSources: string[];
}
export const DATAPLANE_LIMIT_DEFAULTS: DataplaneLimits;
export function dataplaneLimits(env?: Record<string, string | undefined>): DataplaneLimits;
export interface Dataplane {
  pid: number;
  port: number;
  dir: string;
  config: string;
  adminSocket: string;
  routesMap: string;
  stop(): Promise<void>;
}
export const DATAPLANE_DEFAULT_PORT: number;
export function startDataplane(options: DataplaneOptions): Promise<Dataplane>;
export interface DataplanePaths {
  dir: string;
  config: string;
  adminSocket: string;
  routesMap: string;
  uncappedSources: string;
  pidFile: string;
}
export function renderDataplaneConfig(options: DataplaneOptions): DataplanePaths;
export function adminCommand(socketPath: string, command: string, timeoutMs?: number): Promise<string>;
