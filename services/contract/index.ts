export * from './common.js';
export * from './errors.schema.js';
export * from './route.js';
export { routes, type Routes, type Operation } from './routes/route-table.js';
export * from './api-client.js';
