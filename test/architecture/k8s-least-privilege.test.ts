import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { LABEL } from '@demo-rooms/contract/runner';
import { copyPod } from '../../runner/engine/kubernetes/copy-pod.js';
import { restrictedViolations, type PodSpecLike } from '../support/kubernetes/pod-security.js';
import { onTheWire } from '../support/kubernetes/strict-objects.js';

// Security review 4, M2 (docs/security.md): what a flaw in a copy, the data plane or the runner
// may reach on Kubernetes and on Docker hosts, read from the files the platform ships (infra/k8s,
// infra/compose). No API server runs here; k8s-manifests.test.ts checks the same objects against the schema.

type Obj = Record<string, any> & { kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string> } };
type Container = { name: string; image: string; securityContext?: Record<string, any>; env?: any[]; envFrom?: any[]; volumeMounts?: any[] };

const k8sDir = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));
const composeFile = fileURLToPath(new URL('../../infra/compose/compose.yaml', import.meta.url));
const objectsOf = (file: string): Obj[] => parseAllDocuments(readFileSync(`${k8sDir}${file}`, 'utf8')).map((d) => d.toJS() as Obj);
const files = readdirSync(k8sDir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
const all = files.flatMap((file) => objectsOf(file).map((object) => ({ file, object })));
const kustomization = parse(readFileSync(`${k8sDir}kustomization.yaml`, 'utf8'));
const one = (file: string, kind: string, name?: string) => {
  const found = all.filter((o) => o.file === file && o.object.kind === kind && (!name || o.object.metadata.name === name));
  expect(found, `${file}: one ${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0].object;
};

/** The namespace kustomize puts the platform's objects in (the namespace transformer's). */
const platformNamespace = (): string => {
  const transformers = (kustomization.transformers ?? []).map((t: string) => parse(t));
  const ns = transformers.find((t: { kind: string }) => t.kind === 'NamespaceTransformer');
  return ns?.metadata.namespace ?? kustomization.namespace;
};

const runnerPod = () => one('runner.yaml', 'Deployment', 'demo-rooms-runner').spec.template;
const container = (pod: { spec: { containers: Container[]; initContainers?: Container[] } }, name: string) =>
  [...(pod.spec.initContainers ?? []), ...pod.spec.containers].find((c) => c.name === name)!;
const envOf = (c: Container): Record<string, any> => Object.fromEntries((c.env ?? []).map((e: { name: string }) => [e.name, e]));
const copiesNamespace = () => envOf(container(runnerPod(), 'runner')).RUNNER_K8S_NAMESPACE.value as string;

/** A container's setting as the kubelet applies it: the container's own, else the pod's. */
const effective = (podSc: Record<string, any> | undefined, c: Container, key: string) => c.securityContext?.[key] ?? podSc?.[key];

describe("copies' namespace (M2)", () => {
  it('is a namespace of its own, named by the runner, where Pod Security `restricted` is enforced', () => {
    const ns = copiesNamespace();
    expect(ns).toBeTruthy();
    expect(ns).not.toBe(platformNamespace());
    const namespace = all.find((o) => o.object.kind === 'Namespace' && o.object.metadata.name === ns);
    expect(namespace, `a Namespace ${ns} is shipped`).toBeTruthy();
    expect(kustomization.resources).toContain(namespace!.file);
    expect(namespace!.object.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'latest',
    });
  });

  it("keeps what names the copies' namespace there when kustomize puts the rest in the platform's", () => {
    // A `namespace:` field would move every object into one namespace, the Role and the deny included.
    expect(kustomization.namespace).toBeUndefined();
    const transformer = (kustomization.transformers ?? []).map((t: string) => parse(t)).find((t: any) => t.kind === 'NamespaceTransformer');
    expect(transformer).toMatchObject({ unsetOnly: true, setRoleBindingSubjects: 'none' });
    const inCopies = all
      .filter((o) => o.object.metadata.namespace === copiesNamespace())
      .map((o) => `${o.object.kind} ${o.object.metadata.name}`);
    expect(inCopies.sort()).toEqual([
      'NetworkPolicy copies',
      'NetworkPolicy default-deny',
      'Role demo-rooms-runner',
      'RoleBinding demo-rooms-runner',
    ]);
  });

  it.skipIf(!hasKubectl())('is where `kubectl kustomize` puts them (kubectl on this machine)', () => {
    const rendered = parseAllDocuments(execFileSync('kubectl', ['kustomize', k8sDir], { encoding: 'utf8', timeout: 60_000 })).map(
      (d) => d.toJS() as Obj,
    );
    const where = (kind: string, name: string) => rendered.find((o) => o.kind === kind && o.metadata.name === name)?.metadata.namespace;
    expect(where('NetworkPolicy', 'default-deny')).toBe(copiesNamespace());
    expect(where('NetworkPolicy', 'copies')).toBe(copiesNamespace());
    expect(where('Role', 'demo-rooms-runner')).toBe(copiesNamespace());
    expect(where('RoleBinding', 'demo-rooms-runner')).toBe(copiesNamespace());
    expect(where('Deployment', 'demo-rooms-runner')).toBe(platformNamespace());
    const binding = rendered.find((o) => o.kind === 'RoleBinding')!;
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'demo-rooms-runner', namespace: platformNamespace() }]);
  });

  it('denies all ingress and egress to every pod there; the one way in is the copies’ policy, from the runner’s pod', () => {
    const deny = one('copies.yaml', 'NetworkPolicy', 'default-deny');
    expect(deny.metadata.namespace).toBe(copiesNamespace());
    expect(deny.spec.podSelector).toEqual({});
    expect([...deny.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    expect(deny.spec.ingress ?? []).toEqual([]);
    expect(deny.spec.egress ?? []).toEqual([]);
    // One policy for every copy (the runner makes none): it selects them by the label each copy's
    // pod carries, lets in the runner's pod alone, in the platform's namespace, on the port each
    // copy's container names, and lets nothing out.
    const policy = one('copies.yaml', 'NetworkPolicy', 'copies');
    expect(policy.metadata.namespace).toBe(copiesNamespace());
    expect(policy.spec.podSelector).toEqual({ matchExpressions: [{ key: LABEL.copy, operator: 'Exists' }] });
    expect([...policy.spec.policyTypes].sort()).toEqual(['Egress', 'Ingress']);
    expect(policy.spec.egress).toEqual([]);
    const pod = runnerPod();
    const [rule, ...others] = policy.spec.ingress;
    expect(others).toEqual([]);
    expect(rule.from).toHaveLength(1);
    expect(pod.metadata.labels).toMatchObject(rule.from[0].podSelector.matchLabels);
    // No pod of the platform but a runner's carries those labels (runner-docker-hosts.yaml is the other way to run it).
    const alike = all.filter((o) =>
      Object.entries(rule.from[0].podSelector.matchLabels).every(([k, v]) => o.object.spec?.template?.metadata?.labels?.[k] === v),
    );
    expect(alike.map((o) => o.file).sort()).toEqual(['runner-docker-hosts.yaml', 'runner.yaml']);
    expect(rule.from[0].namespaceSelector).toEqual({ matchLabels: { 'kubernetes.io/metadata.name': platformNamespace() } });
    const copy = copyPod(copySpec(), { namespace: copiesNamespace(), image: copySpec().image, pullSecret: null });
    const copyPort = copy.spec!.containers.find((c) => c.name === 'copy')!.ports!;
    expect(rule.ports).toEqual([{ protocol: 'TCP', port: copyPort[0].name }]);
    expect(copyPort).toEqual([{ name: rule.ports[0].port, containerPort: 8080, protocol: 'TCP' }]);
    expect(copy.metadata!.labels).toHaveProperty(LABEL.copy);
  });

  it("admits a copy's pod: it meets `restricted`", () => {
    const spec = copySpec();
    const pod = onTheWire(copyPod(spec, { namespace: copiesNamespace(), image: spec.image, pullSecret: 'pull-x' }), 'V1Pod');
    expect(restrictedViolations(pod.spec as PodSpecLike)).toEqual([]);
  });
});

describe("the runner's rights (M2)", () => {
  it("lives in the copies' namespace alone: its Role and RoleBinding there, nothing in the platform's", () => {
    const role = one('runner.yaml', 'Role', 'demo-rooms-runner');
    const binding = one('runner.yaml', 'RoleBinding', 'demo-rooms-runner');
    expect(copiesNamespace()).toMatch(/^[a-z0-9-]+$/);
    expect(role.metadata.namespace).toBe(copiesNamespace());
    expect(binding.metadata.namespace).toBe(copiesNamespace());
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'demo-rooms-runner' });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'demo-rooms-runner', namespace: platformNamespace() }]);
    // No other binding anywhere names the runner's account.
    const bindings = all.filter(
      (o) => /RoleBinding$/.test(o.object.kind) && JSON.stringify(o.object.subjects).includes('demo-rooms-runner'),
    );
    expect(bindings.map((o) => o.object.metadata.namespace)).toEqual([copiesNamespace()]);
  });

  it('holds the verbs the engine calls and no more: no wildcard, no listing of secrets, no way to grant itself more', () => {
    const role = one('runner.yaml', 'Role', 'demo-rooms-runner');
    const rights = Object.fromEntries(
      role.rules.flatMap((r: { apiGroups: string[]; resources: string[]; verbs: string[] }) =>
        r.resources.map((res) => [res, [...r.verbs].sort()]),
      ),
    );
    expect(rights).toEqual({
      pods: ['create', 'delete', 'list', 'patch', 'watch'],
      'pods/log': ['get'],
      secrets: ['create', 'get', 'update'],
    });
  });

  it("mounts the service account's token in the runner's container only, never the data plane's", () => {
    const sa = one('runner.yaml', 'ServiceAccount', 'demo-rooms-runner');
    expect(sa.automountServiceAccountToken).toBe(false);
    const pod = runnerPod();
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    const tokenVolumes = pod.spec.volumes
      .filter((v: any) => v.projected?.sources.some((s: any) => s.serviceAccountToken))
      .map((v: { name: string }) => v.name);
    expect(tokenVolumes).toHaveLength(1);
    const mounting = [...pod.spec.initContainers, ...pod.spec.containers]
      .filter((c: Container) => (c.volumeMounts ?? []).some((m) => tokenVolumes.includes(m.name)))
      .map((c: Container) => c.name);
    expect(mounting).toEqual(['runner']);
    expect(container(pod, 'runner').volumeMounts).toContainEqual({
      name: tokenVolumes[0],
      mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
      readOnly: true,
    });
    // The Docker-hosts runner never calls the API: no container of its pod gets a token.
    expect(one('runner-docker-hosts.yaml', 'DaemonSet').spec.template.spec.automountServiceAccountToken).toBe(false);
  });

  it("gives the data plane's containers the copy-token key and no other secret", () => {
    for (const [file, kind] of [
      ['runner.yaml', 'Deployment'],
      ['runner-docker-hosts.yaml', 'DaemonSet'],
    ] as const) {
      const pod = one(file, kind).spec.template;
      for (const name of ['dataplane-config', 'dataplane']) {
        const c = container(pod, name);
        expect(
          (c.envFrom ?? []).filter((e) => e.secretRef),
          `${file} ${name}`,
        ).toEqual([]);
        const secrets = (c.env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.valueFrom.secretKeyRef.key);
        expect(secrets, `${file} ${name}`).toEqual(name === 'dataplane-config' ? ['COPY_TOKEN_KEY'] : []);
      }
    }
  });
});

describe('HAProxy, the data plane, in every shipped file (M2)', () => {
  it.each([
    ['runner.yaml', 'Deployment'],
    ['runner-docker-hosts.yaml', 'DaemonSet'],
  ] as const)('%s: runs as a user that is not root, with every capability dropped and no privilege to gain', (file, kind) => {
    const pod = one(file, kind).spec.template;
    const podSc = pod.spec.securityContext;
    const haproxy = pod.spec.containers.filter((c: Container) => c.image.startsWith('haproxy'));
    expect(haproxy).toHaveLength(1);
    for (const c of haproxy) {
      expect(effective(podSc, c, 'runAsNonRoot')).toBe(true);
      expect(effective(podSc, c, 'runAsUser')).toBeGreaterThan(0);
      expect(c.securityContext?.allowPrivilegeEscalation).toBe(false);
      expect(c.securityContext?.privileged ?? false).toBe(false);
      expect(c.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
      // Its files are mode 600: the container that writes them runs as the same user.
      const writer = container(pod, 'dataplane-config');
      expect(effective(podSc, writer, 'runAsUser')).toBe(effective(podSc, c, 'runAsUser'));
      expect(writer.securityContext?.capabilities).toEqual({ drop: ['ALL'] });
    }
  });

  it("runner.yaml: the runner's whole pod meets `restricted` too", () => {
    expect(restrictedViolations(runnerPod().spec)).toEqual([]);
  });

  it('compose.yaml: runs as a user that is not root, with every capability dropped and no privilege to gain', () => {
    const compose = parse(readFileSync(composeFile, 'utf8'));
    const dataplane = Object.values(compose.services as Record<string, any>).filter((s) => String(s.image).startsWith('haproxy'));
    expect(dataplane).toHaveLength(1);
    const [s] = dataplane;
    const [uid, gid] = String(s.user).split(':');
    expect(uid).toMatch(/^[1-9]\d*$/);
    expect(gid).toMatch(/^[1-9]\d*$/);
    expect(s.cap_drop).toEqual(['ALL']);
    expect(s.cap_add).toBeUndefined();
    expect(s.privileged ?? false).toBe(false);
    expect(s.security_opt).toContain('no-new-privileges:true');
    // The config it reads (mode 600) is handed to that user by the service that writes it.
    expect(compose.services['dataplane-config'].command.join(' ')).toContain(`chown -R ${uid}:${gid} /dataplane`);
  });
});

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 10_000 });
    return true;
  } catch {
    return false;
  }
}

function copySpec() {
  return {
    copyId: randomUUID(),
    buildId: randomUUID(),
    projectId: randomUUID(),
    workspaceId: randomUUID(),
    runnerId: 'cluster',
    image: `registry.example.com/${randomUUID()}/app@sha256:${'a'.repeat(64)}`,
    start: null,
    env: {},
    port: 8080,
    memoryMb: 128,
    cpus: 0.5,
    pids: 64,
    writableMb: 16,
  };
}
