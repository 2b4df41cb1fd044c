import { describe, expect, it } from 'vitest';
import { copyCreateOptions, type DockerCopySpec } from './docker-create-options.js';

const spec: DockerCopySpec = {
  copyId: '11111111-2222-3333-4444-555555555555',
  buildId: 'b',
  projectId: 'p',
  workspaceId: 'w',
  runnerId: 'r',
  image: 'sha256:abc',
  start: ['node', 'server.js'],
  env: { MOCK_MODE: 'demo', PORT: '1', HOST: '1.2.3.4' },
  network: 'rc-net',
  port: 8080,
  memoryMb: 256,
  cpus: 0.5,
  pids: 128,
  writableMb: 64,
};

describe('copy create options', () => {
  it('hardens every copy whatever the build asks', () => {
    const o = copyCreateOptions(spec);
    expect(o.User).toBe('1000:1000');
    expect(o.WorkingDir).toBe('/app');
    expect(o.HostConfig).toMatchObject({
      NetworkMode: 'rc-net',
      Init: true,
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges'],
      Memory: 256 * 2 ** 20,
      MemorySwap: 256 * 2 ** 20,
      CpuPeriod: 1_000_000,
      CpuQuota: 500_000,
      PidsLimit: 128,
      ReadonlyRootfs: true,
      RestartPolicy: { Name: 'no' },
    });
    expect(o.HostConfig?.Sysctls).toMatchObject({ 'net.ipv6.conf.all.disable_ipv6': '1', 'net.ipv6.conf.default.disable_ipv6': '1' });
    expect(o.HostConfig?.Privileged).toBeUndefined();
    expect(o.HostConfig?.Binds).toBeUndefined();
    expect(o.HostConfig?.PortBindings).toBeUndefined();
    expect(o.StopTimeout).toBeLessThanOrEqual(5);
  });

  it('sets PORT and HOST itself: run.env cannot move the copy off the port it is probed on', () => {
    const env = copyCreateOptions(spec).Env!;
    expect(env).toContain('PORT=8080');
    expect(env).toContain('HOST=0.0.0.0');
    expect(env).toContain('MOCK_MODE=demo');
    expect(env.filter((e) => e.startsWith('PORT='))).toHaveLength(1);
  });

  it("labels the copy, uses run.start as the command, and the image's own without it", () => {
    const o = copyCreateOptions(spec);
    expect(o.Labels).toEqual({
      'rooms.copy': spec.copyId,
      'rooms.build': 'b',
      'rooms.project': 'p',
      'rooms.workspace': 'w',
      'rooms.runner': 'r',
    });
    expect(o.Cmd).toEqual(['node', 'server.js']);
    expect(o.name).toBe(`rc-${spec.copyId}`);
    expect(copyCreateOptions({ ...spec, start: null }).Cmd).toBeUndefined();
  });

  it('gives a copy size-capped writable /app and /tmp and nothing else writable', () => {
    const podman = copyCreateOptions(spec).HostConfig!;
    expect(podman.ReadonlyRootfs).toBe(true);
    expect(podman.Tmpfs).toEqual({ '/app': 'rw,nosuid,nodev,size=64m,U', '/tmp': 'rw,noexec,nosuid,nodev,size=64m' });
    const docker = copyCreateOptions(spec, 'docker').HostConfig!;
    expect(docker.ReadonlyRootfs).toBe(true);
    expect(docker.Tmpfs).toEqual({ '/tmp': 'rw,noexec,nosuid,nodev,size=64m' });
    expect(docker.Mounts?.[0]).toMatchObject({ Type: 'volume', Target: '/app', Source: '' });
    expect(docker.Mounts?.[0].VolumeOptions?.DriverConfig?.Options?.o).toContain('size=64m');
  });

  it("on the runner's podman, /app is an overlay of the image's /app under the copy's own tmpfs, copied up on write", () => {
    const app = { kind: 'overlay' as const, lower: '/lower/app', upper: '/w/r/c/upper', work: '/w/r/c/work' };
    const o = copyCreateOptions({ ...spec, app }).HostConfig!;
    expect(o.Binds).toEqual(['/lower/app:/app:O,upperdir=/w/r/c/upper,workdir=/w/r/c/work']);
    expect(o.Tmpfs).toEqual({ '/tmp': 'rw,noexec,nosuid,nodev,size=64m' });
    expect(o.ReadonlyRootfs).toBe(true);
    expect(() => copyCreateOptions({ ...spec, app }, 'docker')).toThrow(/podman/);
    // The rehearsal on podman: the same overlay, its upper the engine's own (gone with the copy).
    const rehearsal = copyCreateOptions({ ...spec, app: { kind: 'engine-overlay', lower: '/lower/app' } }).HostConfig!;
    expect(rehearsal.Binds).toEqual(['/lower/app:/app:O']);
    expect(rehearsal.Mounts).toBeUndefined();
    expect(() => copyCreateOptions({ ...spec, app: { kind: 'engine-overlay', lower: '/l' } }, 'docker')).toThrow(/podman/);
    // The rehearsal elsewhere: a volume on disk filled from the image.
    expect(copyCreateOptions({ ...spec, app: { kind: 'volume' } }).HostConfig!.Mounts).toEqual([
      { Type: 'volume', Target: '/app', Source: '' },
    ]);
  });

  it("covers the image's VOLUMEs read-only: none becomes an unbounded volume on the host's disk", () => {
    for (const engine of ['podman', 'docker'] as const) {
      const tmpfs = copyCreateOptions({ ...spec, imageVolumes: ['/data', '/app', '/tmp'] }, engine).HostConfig!.Tmpfs!;
      expect(tmpfs['/data']).toBe('ro,noexec,nosuid,nodev,size=4k');
      expect(tmpfs['/tmp']).toBe('rw,noexec,nosuid,nodev,size=64m');
    }
  });
});
