import { chmod, readFile, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, SESSION_COOKIE } from '@demo-rooms/contract';
import { issueToken } from '../../services/ops/ops.service.js';
import { refusal } from '../support/refusal.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { expectRefusal } from './support/expect-refusal.js';
import { configHome, fixture, pitch, spawnPitch, type PitchEnv } from './support/pitch.js';

// Sign-in of the tool: device login approved through the API by a signed-in person, the token
// kept in a file only its owner can read, whoami, logout, and which token wins.

let platform: Platform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform.close();
});

/** A loopback port nothing listens on (taken, then let go). */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs `pitch login`, approves its code as `approver` once it is shown (from the web app, signed in
 * in a browser: only a cookie session approves a device), and waits for the tool.
 */
async function login(env: PitchEnv, approver: Awaited<ReturnType<Platform['person']>>) {
  const child = spawnPitch(['login'], env);
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const shown = new Promise<{ userCode: string; verifyUrl: string }>((resolve) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const code = /confirm the code ([A-Z]{4}-[A-Z]{4})/.exec(stderr);
      const url = /open (\S+)/.exec(stderr);
      if (code && url) resolve({ userCode: code[1], verifyUrl: url[1] });
    });
  });
  const { userCode, verifyUrl } = await shown;
  expect(verifyUrl).toBe(`${platform.baseUrl}/device?code=${userCode}`);
  const { token: web } = await issueToken(platform.deps.sql, approver.email, { kind: 'web' });
  const inBrowser = createClient({ baseUrl: platform.baseUrl, headers: { cookie: `${SESSION_COOKIE}=${web}`, origin: platform.baseUrl } });
  await inBrowser.call('deviceApprove', { body: { userCode } });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

describe('pitch login, whoami and logout', () => {
  it('signs in with a device code, keeps the token in a 0600 file, and logs out on the platform', async () => {
    const person = await platform.person({ name: 'Grace' });
    const env: PitchEnv = { api: platform.baseUrl, configHome: await configHome() };

    const signedIn = await login(env, person);
    expect(signedIn.code, signedIn.stderr).toBe(0);
    expect(signedIn.stdout).toBe('');
    expect(signedIn.stderr).toContain(`Signed in to ${platform.baseUrl} as ${person.email}.`);

    const file = join(env.configHome, 'pitch', 'config.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.configHome, 'pitch'))).mode & 0o777).toBe(0o700);
    const token: string = JSON.parse(await readFile(file, 'utf8')).hosts[platform.baseUrl].token;
    expect(token).toMatch(/^pp_cli_/);

    const me = await pitch(['whoami'], env);
    expect(me).toMatchObject({ code: 0, stdout: `${person.email}\n` });
    expect(me.stderr).toContain('token from pitch login');
    const json = await pitch(['whoami', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ email: person.email, workspace: { role: 'owner' } });

    const out = await pitch(['logout'], env);
    expect(out.code, out.stderr).toBe(0);
    expect(JSON.parse(await readFile(file, 'utf8')).hosts).toEqual({});
    // The session ended on the platform, not just here.
    expect((await refusal(createClient({ baseUrl: platform.baseUrl, token }).call('whoami'))).status).toBe(401);
    expectRefusal(await pitch(['whoami'], env), /^pitch: not signed in to http:\/\/127\.0\.0\.1:\d+$/);
    const twice = await pitch(['logout'], env);
    expect([twice.code, twice.stderr]).toEqual([0, `Not signed in to ${platform.baseUrl}: nothing to sign out of.\n`]);
  });

  it('takes the token from --token, then PP_TOKEN, then the file', async () => {
    const [fromFile, fromEnv, fromFlag] = await Promise.all([platform.person(), platform.person(), platform.person()]);
    const env: PitchEnv = { api: platform.baseUrl, configHome: await configHome() };
    expect((await login(env, fromFile)).code).toBe(0);

    expect((await pitch(['whoami'], env)).stdout).toBe(`${fromFile.email}\n`);
    expect((await pitch(['whoami'], { ...env, token: fromEnv.token })).stdout).toBe(`${fromEnv.email}\n`);
    expect((await pitch(['whoami', '--token', fromFlag.token], { ...env, token: fromEnv.token })).stdout).toBe(`${fromFlag.email}\n`);
  });

  it('makes a token file that was loosened readable by its owner only again', async () => {
    const person = await platform.person();
    const env: PitchEnv = { api: platform.baseUrl, configHome: await configHome() };
    expect((await login(env, person)).code).toBe(0);
    const file = join(env.configHome, 'pitch', 'config.json');
    await chmod(file, 0o644);
    const me = await pitch(['whoami'], env);
    expect(me.stdout).toBe(`${person.email}\n`);
    expect(me.stderr).toContain('readable by others');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it('refuses in plain words when the platform cannot be reached or the token is refused', async () => {
    const port = await freePort();
    const env: PitchEnv = { api: `http://127.0.0.1:${port}`, token: 'pp_cli_nothing', configHome: await configHome() };
    expectRefusal(await pitch(['whoami'], env), new RegExp(`^pitch: cannot reach the platform: connection refused on port ${port}$`));
    // A deploy asks the platform beside reading the folder: the refusal's line, not Node's stack trace.
    const deploy = await pitch(['deploy'], env, await fixture('static-site'));
    expect(deploy.stderr).not.toContain('    at ');
    expectRefusal(deploy, new RegExp(`^pitch: cannot reach the platform: connection refused on port ${port}$`));
    const lines = expectRefusal(
      await pitch(['whoami'], { ...env, api: platform.baseUrl }),
      /^pitch: reading the account: the platform refused with 401 sign in first$/,
    );
    expect(lines[1]).toContain('pitch login');
  });

  it('warns on stderr when the platform address is plain http to another machine, never for https or loopback', async () => {
    const person = await platform.person();
    const warning =
      /^pitch: warning: http:\/\/example\.test is plain http on another machine: your token crosses the network unencrypted; use https:\/\/$/m;
    const far = await pitch(['whoami'], { api: 'http://example.test', configHome: await configHome() });
    expect(far.code).toBe(1);
    expect(far.stderr).toMatch(warning);
    expect(far.stderr).toContain('pitch: not signed in to http://example.test');
    const secure = await pitch(['whoami'], { api: 'https://example.test', configHome: await configHome() });
    expect(secure.stderr).not.toContain('warning');
    const local = await pitch(['whoami'], { api: platform.baseUrl, token: person.token, configHome: await configHome() });
    expect(local).toMatchObject({ code: 0, stdout: `${person.email}\n` });
    expect(local.stderr).not.toContain('warning');
  });
});
