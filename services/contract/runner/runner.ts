// The runner's side of the contract, `@demo-rooms/contract/runner`: its internal API, the typed
// client the room calls it with, the key both derive (node:crypto), a copy's labels and
// container spec, the engine's log frames. Node-only as a whole, like everything that talks to
// the runner or an engine.
export * from './copy.js';
export * from './runner-api.schema.js';
export * from './runner-client.js';
export * from './runner-key.js';
export * from './runner-refusal.js';
export * from './fleet-client.js';
export * from './fleet-placement.js';
