import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { REGISTRY_ISSUER, REGISTRY_SERVICE } from '../../services/core/infra/registry/registry-token.js';
import { validateStrict } from '../support/kubernetes/strict-objects.js';

// The shipped Kubernetes files (infra/k8s) as the API server would take them: every object against
// Kubernetes 1.34's schema with no field it does not know, and the runner's reach kept to its namespace.

const dir = fileURLToPath(new URL('../../infra/k8s/', import.meta.url));
const documents = (file: string) =>
  parseAllDocuments(readFileSync(`${dir}${file}`, 'utf8')).map((d) => {
    if (d.errors.length) throw new Error(`${file}: ${d.errors[0].message}`);
    return d.toJS() as Record<string, unknown> & { kind: string; metadata: { name: string } };
  });
/** Files of objects the API serves without a custom resource definition (monitoring.example.yaml needs the Prometheus operator's). */
const files = readdirSync(dir).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml' && f !== 'monitoring.example.yaml');
const all = files.flatMap((file) => documents(file).map((object) => ({ file, object })));
const find = (kind: string, name: string): unknown =>
  all.find((o) => o.object.kind === kind && o.object.metadata.name === name && o.file === 'runner.yaml')?.object;

describe('the shipped Kubernetes files', () => {
  it.each(all.map((o) => [`${o.file}: ${o.object.kind} ${o.object.metadata.name}`, o.object] as const))(
    '%s is valid, strictly',
    async (_, object) => {
      await validateStrict(object);
    },
  );

  it('lists files that exist, the Kubernetes runner and its data plane among them', () => {
    const kustomization = documents('kustomization.yaml')[0] as unknown as { resources: string[] };
    for (const file of kustomization.resources) expect(files).toContain(file);
    expect(kustomization.resources).toEqual(expect.arrayContaining(['runner.yaml', 'dataplane.yaml']));
  });

  it("gives the runner the copies' namespace's pods, logs and pull secrets, and nothing cluster-wide", () => {
    expect(all.filter((o) => /^Cluster/.test(o.object.kind))).toEqual([]);
    const role = find('Role', 'demo-rooms-runner') as { rules: { resources: string[]; verbs: string[] }[] };
    expect(role.rules.flatMap((r) => r.resources).sort()).toEqual(['pods', 'pods/log', 'secrets']);
    expect(role.rules.flatMap((r) => r.verbs)).not.toContain('*');
    const deployment = find('Deployment', 'demo-rooms-runner') as {
      spec: { template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> } };
    };
    const pod = deployment.spec.template.spec as {
      serviceAccountName: string;
      hostNetwork?: boolean;
      containers: { name: string; env: { name: string; value?: string }[]; volumeMounts: { name: string; mountPath: string }[] }[];
    };
    expect(pod.serviceAccountName).toBe('demo-rooms-runner');
    expect(pod.hostNetwork ?? false).toBe(false);
    const runner = pod.containers.find((c) => c.name === 'runner')!;
    const env = Object.fromEntries(runner.env.map((e) => [e.name, e.value]));
    expect(env.RUNNER_ENGINE).toBe('kubernetes');
    // The copies' NetworkPolicy admits this pod's labels: the data plane beside the runner.
    const policy = all.find((o) => o.file === 'copies.yaml' && o.object.kind === 'NetworkPolicy' && o.object.metadata.name === 'copies')!
      .object as unknown as { spec: { ingress: { from: { podSelector: { matchLabels: Record<string, string> } }[] }[] } };
    expect(deployment.spec.template.metadata.labels).toMatchObject(policy.spec.ingress[0].from[0].podSelector.matchLabels);
    // The admin socket shared through one volume.
    const dataplane = pod.containers.find((c) => c.name === 'dataplane')!;
    expect(dataplane.volumeMounts).toContainEqual({ name: 'dataplane', mountPath: '/dataplane' });
    expect(runner.volumeMounts).toContainEqual({ name: 'dataplane', mountPath: '/dataplane' });
    expect(env.DATAPLANE_ADMIN_SOCKET).toBe('/dataplane/admin.sock');
  });

  it('runs a registry that trusts the tokens the api signs, and gives the sweep its config and every key it names', () => {
    const objects = all.map((o) => o.object as Record<string, any>);
    const config = parse(objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'demo-rooms-registry')!.data['config.yml']);
    expect(config.auth.token).toMatchObject({
      service: REGISTRY_SERVICE,
      issuer: REGISTRY_ISSUER,
      rootcertbundle: '/etc/registry-token/tls.crt',
    });
    expect(config.storage.delete).toEqual({ enabled: true });
    const settings = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'demo-rooms-config')!.data;
    expect(config.auth.token.realm).toBe(`${settings.PUBLIC_URL}/v2/token`);
    // Builders and nodes reach the registry at its public name through the api's registry gate
    // (issue 45: the quota holds there), with a bounded body; the platform reads it in the cluster.
    const registryIngress = objects.find((o) => o.kind === 'Ingress' && o.metadata.name === 'demo-rooms-registry')!;
    expect(new URL(settings.REGISTRY_PUBLIC_URL).hostname).toBe(registryIngress.spec.rules[0].host);
    expect(settings.RUNNER_K8S_REGISTRY_HOST).toBe(registryIngress.spec.rules[0].host);
    expect(registryIngress.spec.rules[0].http.paths.map((p: any) => p.backend.service.name)).toEqual(['demo-rooms-api']);
    expect(registryIngress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-body-size']).toMatch(/^[1-9]\d*m$/);
    expect(new URL(settings.REGISTRY_URL).hostname).toBe('demo-rooms-registry');
    expect(config.storage.maintenance.uploadpurging).toMatchObject({ enabled: true, age: '24h' });
    const podOf = (name: string) => objects.find((o) => o.kind === 'Deployment' && o.metadata.name === name)!.spec.template.spec;
    // Whoever signs has the key where REGISTRY_TOKEN_KEY_FILE says; the sweep reads the registry's own config.
    for (const name of ['demo-rooms-api', 'demo-rooms-runner', 'demo-rooms-workers']) {
      const pod = podOf(name);
      const container = pod.containers.find((c: { image: string }) => c.image === 'demo-rooms');
      const mount = container.volumeMounts.find((m: { mountPath: string }) =>
        settings.REGISTRY_TOKEN_KEY_FILE.startsWith(`${m.mountPath}/`),
      );
      expect(mount, name).toBeTruthy();
      expect(pod.volumes.find((v: { name: string }) => v.name === mount.name).secret.secretName).toBe('demo-rooms-registry-token');
    }
    const workers = podOf('demo-rooms-workers').containers[0];
    const registryConfig = workers.env.find((e: { name: string }) => e.name === 'REGISTRY_CONFIG').value;
    expect(workers.volumeMounts).toContainEqual(
      expect.objectContaining({ name: 'registry-config', mountPath: registryConfig.replace(/\/config\.yml$/, '') }),
    );
    // Every key of demo-rooms-secrets that a file names is in the example Secret.
    const example = documents('secret.example.yaml')[0] as unknown as { stringData: Record<string, string> };
    const named = [...JSON.stringify(objects).matchAll(/"name":"demo-rooms-secrets","key":"([A-Z_0-9]+)"/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    for (const key of named) expect(Object.keys(example.stringData), key).toContain(key);
  });
});
