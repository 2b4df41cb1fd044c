import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWorkers, type WorkersApp } from '../../workers/app.js';
import { launchChromium } from '../support/browser.js';
import { startHttpsReceiver, type HttpsReceiver } from '../support/https-receiver.js';
import { startPlatform, type Platform } from '../support/platform.js';
import { DESKTOP, expectAccessible, openArea, signedInBuilder, WIDE_PHONE, watchProblems, webContext } from '../support/web-app.js';

// The Webhooks page (issue 34), driven in Chromium: an endpoint added (its secret shown once),
// its events changed, a test event sent to a real HTTPS receiver on loopback and seen in the
// delivery log, then re-sent from the log. The receiver is trusted through WEBHOOKS_EXTRA_CA_FILE
// and local development's setting lets it be 127.0.0.1. At a desktop's width and a phone's: the
// form empties once the endpoint is added, and each delivery says whose event it was (issue 47).

let receiver: HttpsReceiver;
let platform: Platform;
let browser: Browser;
let workers: WorkersApp;
beforeAll(async () => {
  receiver = await startHttpsReceiver();
  platform = await startPlatform({
    env: { WEBHOOKS_ALLOW_PRIVATE: 'true', WEBHOOKS_EXTRA_CA_FILE: receiver.caFile, WEBHOOKS_BACKOFF_MS: '20' },
  });
  workers = buildWorkers(platform.deps, { queues: ['webhook.deliver'] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await workers?.close();
  await platform?.close();
  await receiver?.close();
});

describe.each([
  ['desktop', DESKTOP],
  ['phone', WIDE_PHONE],
] as const)('at a %s width', (_name, viewport) => {
  it('adds an endpoint, shows its secret once, sends a test event, shows the log and re-sends', async () => {
    const { person } = await signedInBuilder(platform, browser, { plan: 'pro' });
    const context = await webContext(browser, platform, person, viewport);
    const page = await context.newPage();
    const problems = watchProblems(page);
    const path = `/e2e-${crypto.randomUUID()}`;
    await openArea(page, `${platform.baseUrl}/webhooks`);
    await page.getByText('No endpoint yet').waitFor();
    await expectAccessible(page);

    await page.getByLabel('Address (https)').fill(receiver.url(path));
    await page.getByLabel('What it is for').fill('Our CRM');
    await page.getByRole('checkbox', { name: /Comment left/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = await page.locator('#webhook-secret').textContent();
    expect(secret).toMatch(/^whsec_/);
    await expect.poll(() => page.getByLabel('Address (https)').inputValue()).toBe('');
    expect(await page.getByLabel('What it is for').inputValue()).toBe('');
    const [endpoint] = await person.client.call('listWebhookEndpoints');
    expect(endpoint).toMatchObject({
      url: receiver.url(path),
      description: 'Our CRM',
      kinds: ['link.opened', 'comment.left'],
      enabled: true,
    });
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await expect.poll(() => page.locator('#webhook-secret').count()).toBe(0);

    // Its events changed in place.
    await page.getByRole('button', { name: 'Edit events of Our CRM' }).click();
    await page
      .getByRole('checkbox', { name: /Stage changed/ })
      .last()
      .check();
    await page.getByRole('button', { name: 'Save events' }).click();
    await expect
      .poll(async () => (await person.client.call('listWebhookEndpoints'))[0].kinds)
      .toEqual(['link.opened', 'comment.left', 'link.stage_changed']);

    await page.getByRole('button', { name: 'Send test event to Our CRM' }).click();
    const log = page.getByRole('region', { name: 'Delivery log of Our CRM' });
    await log.getByText('Delivered').waitFor();
    await log.getByRole('cell', { name: '200 OK' }).waitFor();
    // Whose event: a test event names its made-up viewer, as a real one names the link's.
    expect(await log.getByTestId('delivery-about').first().textContent()).toBe('for Test Viewer, Example Co');
    expect(receiver.received(path)).toHaveLength(1);
    await expectAccessible(page);

    await log.getByRole('button', { name: /^Re-send/ }).click();
    await log.getByRole('cell', { name: '2.1', exact: true }).waitFor();
    await expect.poll(() => receiver.received(path).length).toBe(2);
    const [delivery] = await person.client.call('listWebhookDeliveries', { params: { endpointId: endpoint.id } });
    await expect
      .poll(async () => (await person.client.call('listWebhookDeliveries', { params: { endpointId: endpoint.id } }))[0].status)
      .toBe('succeeded');
    expect(delivery.series).toBe(2);
    expect(problems).toEqual([]);
    await context.close();
  });
});
