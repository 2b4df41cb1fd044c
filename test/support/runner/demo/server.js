// The runner tests' demo: says which PORT, HOST and copy it is, keeps a counter (controls and
// story calls), tries connections on request (isolation tests), echoes WebSocket frames, sends
// headers that are the room's to decide (/hostile-headers), pages under a policy of its own (/csp-page), what it
// was told of its viewer (/headers, and the first frame of a WebSocket to /headers, or to /viewer for the personal
// X-Demo-Viewer-* headers), and its IPv6 addresses (/ipv6).
const http = require('node:http');
const net = require('node:net');
const crypto = require('node:crypto');

const port = Number(process.env.PORT || 3000);
const host = process.env.HOST || '0.0.0.0';
let counter = 0;

const json = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://copy');
  if (url.pathname === '/probe') {
    // /probe?to=host:port → whether a TCP connection from inside the copy gets through.
    const to = url.searchParams.get('to') || '';
    const at = to.lastIndexOf(':');
    const socket = net.connect({ host: to.slice(0, at), port: Number(to.slice(at + 1)) });
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      socket.destroy();
      json(res, 200, { to, result });
    };
    socket.setTimeout(1500, () => finish('timeout'));
    socket.on('connect', () => finish('connected'));
    socket.on('error', (e) => finish(e.code || e.message));
    return;
  }
  if (url.pathname === '/counter') {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (req.method === 'DELETE') counter = 0;
      if (req.method === 'POST') counter += body ? Number(JSON.parse(body).by || 1) : 1;
      json(res, 200, { counter });
    });
    return;
  }
  if (url.pathname === '/broken') return json(res, 500, { error: 'broken on purpose' });
  if (url.pathname === '/page') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag: '"page-1"' });
    return res.end('<!doctype html><html><head><title>Demo</title></head><body><button id="go">Go</button></body></html>');
  }
  if (url.pathname === '/csp-page') {
    // A page under the Content-Security-Policy that ?csp= names: the room's capture agent may not run under it.
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': url.searchParams.get('csp') || "script-src 'none'",
    });
    return res.end('<!doctype html><html><head><title>Policy</title></head><body><h1>Under a policy</h1></body></html>');
  }
  // A server that goes away mid-request: the proxy gets no answer at all.
  if (url.pathname === '/hang-up') return void req.socket.destroy();
  if (url.pathname === '/hostile-headers') {
    // Headers a copy must not decide for the room: framing, cookies for a parent domain, and
    // wiping the cookies of every origin under it.
    res.setHeader('x-frame-options', 'ALLOWALL');
    res.setHeader('content-security-policy', "script-src 'self'; frame-ancestors *");
    res.setHeader('set-cookie', ['x=1; Domain=rooms.localhost; Path=/; HttpOnly']);
    res.setHeader('clear-site-data', '"cookies", "cache"');
    return json(res, 200, { hostile: true });
  }
  if (url.pathname === '/headers') return json(res, 200, req.headers);
  if (url.pathname === '/ipv6') {
    // The copy's own IPv6 addresses, one line each as the kernel lists them (none when IPv6 is off in its namespace).
    let list = '';
    try {
      list = require('node:fs').readFileSync('/proc/net/if_inet6', 'utf8');
    } catch {}
    return json(res, 200, { addresses: list.split('\n').filter(Boolean) });
  }
  json(res, 200, {
    path: url.pathname,
    port,
    host,
    copy: process.env.HOSTNAME || null,
    mode: process.env.MOCK_MODE || null,
    uid: process.getuid(),
  });
});

// A minimal WebSocket echo (small text frames): enough to see frames cross the proxy.
server.on('upgrade', (req, socket) => {
  const accept = crypto
    .createHash('sha1')
    .update(req.headers['sec-websocket-key'] + '258EAFA5-E914-47DA-95CA-C5AB0DC85B11')
    .digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
  if (req.url === '/headers') {
    // The forwarding headers the copy got, names and values, kept within one small frame.
    const told = Object.entries(req.headers)
      .filter(([name]) => /forwarded|real-ip|client-ip/.test(name))
      .map(([n, v]) => `${n}=${v}`)
      .join(' ')
      .slice(0, 125);
    socket.write(Buffer.concat([Buffer.from([0x81, Buffer.byteLength(told)]), Buffer.from(told)]));
  }
  if (req.url === '/viewer') {
    // Who the room said the viewer is (personalised copies), as sent: percent-encoded, so ASCII.
    const told = Object.entries(req.headers)
      .filter(([name]) => name.startsWith('x-demo-viewer-'))
      .map(([n, v]) => `${n}=${v}`)
      .join(' ')
      .slice(0, 125);
    socket.write(Buffer.concat([Buffer.from([0x81, Buffer.byteLength(told)]), Buffer.from(told)]));
  }
  socket.on('data', (frame) => {
    const len = frame[1] & 0x7f;
    if ((frame[0] & 0x0f) === 8 || len > 125) return socket.end();
    const mask = frame.subarray(2, 6);
    const text = Buffer.from(frame.subarray(6, 6 + len).map((b, i) => b ^ mask[i % 4]));
    socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
  });
});

server.listen(port, host);
