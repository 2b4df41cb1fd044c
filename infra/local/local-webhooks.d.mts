// Types of local-webhooks.mjs, which a test imports.
export function localWebhooks(env: Record<string, string | undefined>): { value: string; line: string };
