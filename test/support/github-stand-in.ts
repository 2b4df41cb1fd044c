import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

// A stand-in for GitHub on loopback: its OAuth 2.0 authorize and token endpoints and the two API
// calls sign-in makes (/user, /user/emails), with PKCE enforced and codes single use. The person
// it vouches for is whoever `nextUser` names when the browser arrives at authorize.

export interface GithubUser {
  id: number;
  avatar_url: string;
  emails: { email: string; verified: boolean; primary: boolean }[];
}

/** GitHub's authorize, token and API endpoints, PKCE enforced, codes single use. */
export function githubStandIn(nextUser: () => GithubUser | null): Server {
  const codes = new Map<string, { challenge: string; redirectUri: string; user: GithubUser; used: boolean }>();
  const tokens = new Map<string, GithubUser>();
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const bodyOf = (req: IncomingMessage) =>
    new Promise<URLSearchParams>((resolve) => {
      let text = '';
      req.on('data', (c) => (text += c)).on('end', () => resolve(new URLSearchParams(text)));
    });
  return createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/login/oauth/authorize') {
      if (url.searchParams.get('code_challenge_method') !== 'S256' || !url.searchParams.get('code_challenge'))
        return json(res, 400, { error: 'pkce required' });
      const code = randomUUID();
      codes.set(code, {
        challenge: url.searchParams.get('code_challenge')!,
        redirectUri: url.searchParams.get('redirect_uri')!,
        user: nextUser()!,
        used: false,
      });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state')!);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && req.method === 'POST') {
      const form = await bodyOf(req);
      const grant = codes.get(form.get('code') ?? '');
      if (form.get('client_id') !== 'gh-client' || form.get('client_secret') !== 'gh-secret')
        return json(res, 401, { error: 'invalid_client' });
      if (!grant || grant.used) return json(res, 400, { error: 'invalid_grant', error_description: 'bad or used code' });
      grant.used = true;
      const verifier = form.get('code_verifier');
      if (!verifier || createHash('sha256').update(verifier).digest('base64url') !== grant.challenge)
        return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
      if (form.get('redirect_uri') !== grant.redirectUri)
        return json(res, 400, { error: 'invalid_grant', error_description: 'redirect_uri' });
      const token = randomUUID();
      tokens.set(token, grant.user);
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
    }
    const user = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    if (!user) return json(res, 401, { message: 'Bad credentials' });
    if (url.pathname === '/user') return json(res, 200, { id: user.id, login: `u${user.id}`, avatar_url: user.avatar_url, email: null });
    if (url.pathname === '/user/emails') return json(res, 200, user.emails);
    json(res, 404, {});
  });
}
