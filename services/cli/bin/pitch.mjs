#!/usr/bin/env node
// The `pitch` bin: starts the TypeScript tool through tsx's loader, so `npx pitch` works from
// the repository without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../main.ts');
const code = await main(process.argv.slice(2));
// Exit by letting the event loop empty, so piped stdout and stderr drain; a handle something left
// open (a keep-alive socket) cannot hold the tool for more than a moment.
process.exitCode = code;
setTimeout(() => process.exit(code), 2000).unref();
