import { runApiProcess } from '../api/api-process.js';
import { createRoom } from '../room/room-server.js';

// The api and the room in one process and on one port: what `npm start` runs, so one address
// serves the builder's API, the viewers' rooms and every content origin on this machine.
await runApiProcess((deps) => createRoom(deps));
