import { describe, expect, it } from 'vitest';
import { openApiDocument } from './openapi.js';
import { ProductEventKind } from './resources/product-event.js';

describe('the OpenAPI document', () => {
  it('documents one signed webhook per product event kind, with its body and the Standard Webhooks headers', () => {
    const hooks = openApiDocument().webhooks as Record<string, { post: { parameters: { name: string }[]; requestBody: unknown } }>;
    expect(Object.keys(hooks).sort()).toEqual([...ProductEventKind.options].sort());
    for (const kind of ProductEventKind.options) {
      expect(hooks[kind].post.parameters.map((p) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
      expect(JSON.stringify(hooks[kind].post.requestBody)).toContain(`"const":"${kind}"`);
    }
  });
});
