// The Docker Engine API's log stream, as both the runner and the CLI's local engine read it.

/** `docker logs` without a terminal frames each chunk: 8 bytes (stream, 0, 0, 0, length) then the bytes. */
export function demuxLogs(buffer: Buffer): string {
  let out = '';
  let at = 0;
  while (at + 8 <= buffer.length && buffer[at] <= 2 && buffer[at + 1] === 0 && buffer[at + 2] === 0 && buffer[at + 3] === 0) {
    const size = buffer.readUInt32BE(at + 4);
    out += buffer.toString('utf8', at + 8, at + 8 + size);
    at += 8 + size;
  }
  return at === 0 ? buffer.toString('utf8') : out;
}
