import { expect, it } from 'vitest';
import { liveContainerDemo } from '../../test/support/container-copy.js';
import type { TestRunner } from '../../test/support/runner/test-runner.js';
import type { Platform } from '../../test/support/platform.js';
import { platformWithRunner } from '../../test/support/suites.js';
import { hit, shellData, type Jar } from '../../test/support/room.js';

// What the room tells a viewer while their copy cannot run yet: high demand with their place,
// then the copy once another viewer hands theirs back.

let platform: Platform;
let runner: TestRunner;
platformWithRunner((p, r) => ([platform, runner] = [p, r]), { RUNNER_HOST_CAPACITY: '2' });

async function viewer(url: string) {
  const jar: Jar = new Map();
  const data = shellData((await hit(platform, new URL(url).pathname, { jar })).text);
  await hit(platform, `/room/${data.sessionId}/hello`, { method: 'POST', jar, json: { name: 'V' } });
  const grant = () => hit(platform, `/room/${data.sessionId}/grant`, { method: 'POST', jar, json: { app: 'web' } });
  // The grant waits up to 10 s for a start; on a loaded machine a start can take longer, and the
  // viewer's shell simply asks again while it reads 'starting'.
  const settled = async () => {
    const until = Date.now() + 60_000;
    let answer = (await grant()).json;
    while (answer.state === 'starting' && Date.now() < until) answer = (await grant()).json;
    return answer;
  };
  return { sessionId: data.sessionId as string, grant, settled };
}

it('queues the third viewer beyond the host capacity with their place, and admits them when one leaves', async () => {
  const { person, project } = await liveContainerDemo(platform, 'Queue');
  const { url } = await person.client.call('createLink', { params: { projectId: project.id }, body: { viewerName: 'Many' } });

  const [a, b, c] = [await viewer(url), await viewer(url), await viewer(url)];
  expect((await a.settled()).state).toBe('ready');
  expect((await b.settled()).state).toBe('ready');
  const waiting = (await c.grant()).json;
  expect(waiting).toMatchObject({ state: 'queued', title: 'High demand', place: 1, waiting: true });
  expect(waiting.url).toBeUndefined();

  await runner.client.leave(a.sessionId);
  const until = Date.now() + 30_000;
  let answer = waiting;
  while (answer.state !== 'ready' && Date.now() < until) answer = (await c.grant()).json;
  expect(answer.state).toBe('ready');
  expect(answer.url).toMatch(/\/__pp\/enter\?g=/);
});
