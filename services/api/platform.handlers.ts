import { manifestJsonSchema } from '@demo-rooms/contract/manifest';
import { openApiDocument } from '@demo-rooms/contract/openapi';
import type { HandlerGroup } from './routing/handler.js';

// Built once: both documents are pure functions of the contract.
let openapi: Record<string, unknown> | undefined;
let manifestSchema: Record<string, unknown> | undefined;

export const platformHandlers = {
  healthz: () => ({ ok: true as const, service: 'demo-rooms-api' }),
  openapi: ({ deps }) => (openapi ??= openApiDocument(deps.config.publicUrl) as unknown as Record<string, unknown>),
  manifestSchema: ({ deps }) => (manifestSchema ??= manifestJsonSchema({ baseUrl: deps.config.publicUrl })),
} satisfies HandlerGroup;
