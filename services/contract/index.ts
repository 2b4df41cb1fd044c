// The contract's browser-safe entry, `@demo-rooms/contract`: the route table and its types, the
// room shell's rows, the typed client, the error body, the resources (the shell's bodies too) and
// the small shared helpers. Nothing here (or
// below it) touches Node: the web app bundles it. The manifest is `./manifest`; the Node-only
// parts are `./runner` and `./node` (package.json `exports`; .dependency-cruiser.cjs holds it).
export * from './common.js';
export * from './errors.schema.js';
export * from './route.js';
export { routes, type Routes, type Operation } from './routes/route-table.js';
export { shellRoutes, type ShellGuardKind, type ShellOperation, type ShellRouteDef, type ShellRoutes } from './routes/shell.routes.js';
export * from './api-client.js';
export * from './resources/account.js';
export * from './resources/activity.js';
export * from './resources/alert.js';
export * from './resources/analytics.js';
export * from './resources/billing.js';
export * from './resources/brand.js';
export * from './resources/build.js';
export * from './resources/direct-upload.js';
export * from './resources/community.js';
export * from './resources/copy-exit.js';
export * from './resources/link.js';
export * from './resources/product-event.js';
export * from './resources/project.js';
export * from './resources/room-setup.js';
export * from './resources/room-shell.js';
export * from './resources/usage-statement.js';
export * from './resources/webhook.js';
export * from './resources/workspace.js';
export * from './room-palettes.js';
export * from './same-path.js';
export * from './sizes.js';
export * from './storable-text.js';
export * from './terminal-text.js';
