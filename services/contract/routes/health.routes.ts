import { z } from 'zod';
import { route } from '../route.js';

export const healthRoutes = {
  healthz: route({
    operation: 'healthz',
    method: 'GET',
    path: '/healthz',
    status: 200,
    open: true,
    tag: 'platform',
    summary: 'Liveness: needs no sign-in.',
    reply: z.object({ ok: z.literal(true), service: z.string() }),
  }),
  openapi: route({
    operation: 'openapi',
    method: 'GET',
    path: '/api/openapi.json',
    status: 200,
    open: true,
    tag: 'platform',
    summary: 'This document (OpenAPI 3.1), generated from the contract.',
    reply: z.record(z.string(), z.unknown()),
  }),
  manifestSchema: route({
    operation: 'manifestSchema',
    method: 'GET',
    path: '/api/manifest.schema.json',
    status: 200,
    open: true,
    tag: 'platform',
    summary: 'The JSON Schema of pitch.json, for editors that read `$schema`.',
    reply: z.record(z.string(), z.unknown()),
  }),
};
