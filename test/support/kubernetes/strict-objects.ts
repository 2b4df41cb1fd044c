import * as k8s from '@kubernetes/client-node';
import * as apps from 'kubernetes-models/apps/v1';
import * as batch from 'kubernetes-models/batch/v1';
import * as networking from 'kubernetes-models/networking.k8s.io/v1';
import * as rbac from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import * as core from 'kubernetes-models/v1';
// client-node's own serializer (not in its index): what its API calls put on the wire.
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';

// Kubernetes objects checked as `kubectl apply --validate=strict` would: against the OpenAPI schema
// of Kubernetes 1.34 (kubernetes-models' compiled validators: types, required fields, enums), and
// refusing fields the API does not know, which those validators let through. Unknown fields are
// found by walking the object along client-node's generated models (each model's attribute map);
// an object built for client-node is walked by its TypeScript names (`_from`), since its serializer
// silently drops any other key, and sent as the serializer writes it.

type Attribute = { name: string; baseName: string; type: string };
const models = k8s as unknown as Record<string, { getAttributeTypeMap?: () => Attribute[] } | undefined>;

/** Paths of fields `type` does not have; `names` says whether keys are client-node's (`typed`) or the API's (`wire`). */
export function unknownFields(value: unknown, type: string, names: 'typed' | 'wire', path = ''): string[] {
  if (value === null || value === undefined) return [];
  const array = /^Array<(.+)>$/.exec(type);
  if (array) return (value as unknown[]).flatMap((item, i) => unknownFields(item, array[1], names, `${path}[${i}]`));
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) return Object.entries(value as object).flatMap(([k, v]) => unknownFields(v, map[1], names, `${path}.${k}`));
  const attributes = models[type]?.getAttributeTypeMap?.();
  if (!attributes || typeof value !== 'object') return [];
  const known = new Map(attributes.map((a) => [names === 'typed' ? a.name : a.baseName, a.type]));
  return Object.entries(value as object).flatMap(([k, v]) => {
    const field = known.get(k);
    return field ? unknownFields(v, field, names, `${path}.${k}`) : [`${path}.${k}`];
  });
}

/** The object as client-node sends it for `type` (`V1Pod`, `V1NetworkPolicy`…). */
export const onTheWire = (object: unknown, type: string): Record<string, unknown> =>
  JSON.parse(JSON.stringify(ObjectSerializer.serialize(object, type, ''))) as Record<string, unknown>;

/** The client-node model that names `apiVersion` and `kind` (`apps/v1`, `Deployment` → `V1Deployment`). */
export function modelName(apiVersion: string, kind: string): string {
  const version = apiVersion.split('/').pop()!;
  return `${version[0].toUpperCase()}${version.slice(1)}${kind}`;
}

type Validating = new (data: never) => { validate(): void };
const groups: Record<string, Record<string, unknown>> = {
  v1: core,
  'apps/v1': apps,
  'batch/v1': batch,
  'networking.k8s.io/v1': networking,
  'rbac.authorization.k8s.io/v1': rbac,
};

/** Throws with every problem of a wire object: the schema's, then unknown fields. */
export async function validateStrict(object: Record<string, unknown>): Promise<void> {
  const { apiVersion, kind } = object as { apiVersion: string; kind: string };
  const model = groups[apiVersion]?.[kind] as Validating | undefined;
  if (!model) throw new Error(`no schema here for ${apiVersion} ${kind}`);
  new model(object as never).validate();
  const unknown = unknownFields(object, modelName(apiVersion, kind), 'wire');
  if (unknown.length)
    throw new Error(`${kind} ${JSON.stringify((object.metadata as { name?: string })?.name)}: unknown fields ${unknown.join(', ')}`);
}
