import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CopySpec } from '@demo-rooms/contract/runner';
import { restrictedViolations, type PodSpecLike } from '../../../test/support/kubernetes/pod-security.js';
import { onTheWire, unknownFields, validateStrict } from '../../../test/support/kubernetes/strict-objects.js';
import { copyPod, COPY_CONTAINER, RECORD_GATE, SEED_CONTAINER } from './copy-pod.js';
import { pullSecret } from './pull-secret.js';

// Every object the Kubernetes engine sends, as the API would take it: Kubernetes 1.34's schema
// and no field it does not know (strict-objects.ts), then the fields that make a copy a copy.

const spec = (over: Partial<CopySpec> = {}): CopySpec => ({
  copyId: randomUUID(),
  buildId: randomUUID(),
  projectId: randomUUID(),
  workspaceId: randomUUID(),
  runnerId: 'runner-a1',
  image: `registry.example.com/${randomUUID()}/${randomUUID()}@sha256:${'a'.repeat(64)}`,
  start: ['node', 'server.js'],
  env: { MOCK_PAYMENTS: '1' },
  port: 8080,
  memoryMb: 96,
  cpus: 0.25,
  pids: 48,
  writableMb: 16,
  ...over,
});

describe('the objects of a copy on Kubernetes', () => {
  it('builds a pod the API takes as it is, with no field it would drop', async () => {
    const s = spec();
    const pod = copyPod(s, { namespace: 'copies', image: s.image, pullSecret: 'pull-x' });
    expect(unknownFields(pod, 'V1Pod', 'typed')).toEqual([]);
    await validateStrict(onTheWire(pod, 'V1Pod'));
  });

  it('refuses a field the API does not know, as kubectl --validate=strict does', async () => {
    const s = spec();
    const pod = copyPod(s, { namespace: 'copies', image: s.image, pullSecret: null });
    const wire = onTheWire(pod, 'V1Pod') as { spec: { containers: Record<string, unknown>[] } };
    wire.spec.containers[0].readOnlyRootFS = true;
    await expect(validateStrict(wire)).rejects.toThrow(/unknown fields \.spec\.containers\[0\]\.readOnlyRootFS/);
    // And what the schema itself refuses (a restart policy that is not one).
    const bad = onTheWire({ ...pod, spec: { ...pod.spec, restartPolicy: 'Sometimes' } }, 'V1Pod');
    await expect(validateStrict(bad)).rejects.toThrow();
  });

  it('makes the pod a copy: never restarted, no cluster credentials, hardened, limited, labelled, gated', () => {
    const s = spec();
    const pod = copyPod(s, { namespace: 'copies', image: s.image, pullSecret: 'pull-x' });
    const p = pod.spec!;
    expect(pod.metadata).toMatchObject({ name: `rc-${s.copyId}`, namespace: 'copies' });
    expect(pod.metadata!.labels).toEqual({
      'rooms.copy': s.copyId,
      'rooms.build': s.buildId,
      'rooms.project': s.projectId,
      'rooms.workspace': s.workspaceId,
      'rooms.runner': s.runnerId,
    });
    expect(p).toMatchObject({
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      schedulingGates: [{ name: RECORD_GATE }],
      imagePullSecrets: [{ name: 'pull-x' }],
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    });
    expect(p.hostNetwork ?? false).toBe(false);
    for (const c of [...p.initContainers!, ...p.containers]) {
      expect(c.image).toBe(s.image);
      expect(c.securityContext).toMatchObject({
        runAsNonRoot: true,
        allowPrivilegeEscalation: false,
        privileged: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(c.resources).toMatchObject({ requests: { memory: '96Mi', cpu: '250m' }, limits: { memory: '96Mi', cpu: '250m' } });
    }
    const copy = p.containers.find((c) => c.name === COPY_CONTAINER)!;
    expect(p.containers).toHaveLength(1);
    expect(copy.args).toEqual(['node', 'server.js']);
    expect(copy.command).toBeUndefined();
    expect(copy.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(copy.env).toEqual(
      expect.arrayContaining([
        { name: 'PORT', value: '8080' },
        { name: 'HOST', value: '0.0.0.0' },
        { name: 'MOCK_PAYMENTS', value: '1' },
      ]),
    );
    // Writable /app (seeded from the image) and /tmp: tmpfs of writableMb each, nothing else writable.
    expect(copy.volumeMounts).toEqual([
      { name: 'app', mountPath: '/app' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(p.volumes).toEqual([
      { name: 'app', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    ]);
    const seed = p.initContainers!.find((c) => c.name === SEED_CONTAINER)!;
    expect(seed.volumeMounts).toEqual([{ name: 'app', mountPath: '/seed' }]);
    expect(seed.command!.join(' ')).toContain('cp -a /app/. /seed/');
  });

  it("meets Pod Security `restricted`, which the copies' namespace enforces (infra/k8s/copies.yaml)", () => {
    for (const s of [spec(), spec({ start: null, env: {} })]) {
      const pod = onTheWire(copyPod(s, { namespace: 'copies', image: s.image, pullSecret: 'pull-x' }), 'V1Pod');
      expect(restrictedViolations(pod.spec as PodSpecLike)).toEqual([]);
    }
    // The check reads what admission reads: one container short of any control is refused.
    const s = spec();
    const pod = onTheWire(copyPod(s, { namespace: 'copies', image: s.image, pullSecret: null }), 'V1Pod').spec as PodSpecLike;
    const seed = pod.initContainers![0];
    seed.securityContext = { ...seed.securityContext, capabilities: { drop: ['ALL'], add: ['NET_RAW'] } };
    delete pod.securityContext!.seccompProfile;
    pod.volumes!.push({ name: 'node', hostPath: { path: '/' } });
    expect(restrictedViolations(pod)).toEqual([
      'hostPath volume node',
      'volume type hostPath (node)',
      `capability NET_RAW added: container ${SEED_CONTAINER}`,
      `seccompProfile not RuntimeDefault or Localhost: container ${SEED_CONTAINER}`,
      `seccompProfile not RuntimeDefault or Localhost: container ${COPY_CONTAINER}`,
    ]);
  });

  it("keeps the runner's PORT and HOST whatever run.env says, and the image's command when run.start is null", () => {
    const s = spec({ env: { PORT: '1', HOST: '127.0.0.1' }, start: null });
    const copy = copyPod(s, { namespace: 'copies', image: s.image, pullSecret: null }).spec!.containers[0];
    expect(copy.env).toEqual([
      { name: 'PORT', value: '8080' },
      { name: 'HOST', value: '0.0.0.0' },
    ]);
    expect(copy.args).toBeUndefined();
  });

  it('refuses labels Kubernetes would refuse', () => {
    expect(() => copyPod(spec({ runnerId: 'Runner A' }), { namespace: 'copies', image: 'x', pullSecret: null })).toThrow(
      /label rooms.runner/,
    );
  });

  it("builds a workspace's pull secret for its registry alone", async () => {
    const workspaceId = randomUUID();
    const expiresAt = new Date('2026-12-01T00:00:00Z');
    const secret = pullSecret(workspaceId, 'copies', 'registry.example.com', { username: 'pull', password: 'signed.jwt.value', expiresAt });
    expect(unknownFields(secret, 'V1Secret', 'typed')).toEqual([]);
    const wire = onTheWire(secret, 'V1Secret');
    await validateStrict(wire);
    expect(wire).toMatchObject({ type: 'kubernetes.io/dockerconfigjson', metadata: { name: `pull-${workspaceId}` } });
    const config = JSON.parse(Buffer.from((wire.data as Record<string, string>)['.dockerconfigjson'], 'base64').toString('utf8'));
    expect(config).toEqual({
      auths: {
        'registry.example.com': {
          username: 'pull',
          password: 'signed.jwt.value',
          auth: Buffer.from('pull:signed.jwt.value').toString('base64'),
        },
      },
    });
  });
});
