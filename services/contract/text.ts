// Text as every client prints it (a line made safe for a terminal, a size in KB or MB), without
// the route table the contract's main entry loads: `@demo-rooms/contract/text`, for the pitch
// tool's lines before the rest of it has loaded (services/cli/lines.ts).
export * from './terminal-text.js';
export * from './sizes.js';
