// Types of the lib.mjs helpers that TypeScript imports (test/support/wait-for.ts polls with waitUntil).
export function waitUntil<T>(
  what: string,
  check: () => T | Promise<T>,
  options?: { timeoutMs?: number; intervalMs?: number; failIf?: () => string | false | null | undefined },
): Promise<Exclude<T, false | null | undefined | 0 | ''>>;
export function canListen(port: number): Promise<boolean>;
/** The full path of `command` on PATH (or the sbin folders), or null. */
export function which(command: string): string | null;
/** Vite's `build`, putting NODE_ENV back as it was (Vite sets it to 'production'). */
export function viteBuild(config: import('vite').InlineConfig): Promise<void>;
/** `preferred` when it is free, else a port the kernel hands out. */
export function freePort(preferred?: number): Promise<number>;
/** True when `pid` is a live process (a zombie counts as dead). */
export function isAlive(pid: number | undefined): boolean;
export function sleep(ms: number): Promise<void>;
