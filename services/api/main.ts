import { runApiProcess } from './api-process.js';

// The api alone, as production runs it; the room is its own process (services/room/main.ts).
await runApiProcess();
