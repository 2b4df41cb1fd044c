import { alertsConsumer } from '../alerts-digest/alerts.consumer.js';
import { webhooksConsumer } from '../webhook-deliver/webhook-consumer.js';
import type { Consumer } from './consumer.js';

/**
 * The webhooks as a consumer (issue 34). Its delivery rows are written outside the claiming
 * transaction, on purpose: a row must be committed before its webhook.deliver job can look for
 * it. A batch handed over again (a fan-out rolled back) finds the same rows and queues the same
 * job ids, so nothing is sent twice.
 */
const webhooks: Consumer = {
  name: webhooksConsumer.name,
  handle({ sql, queues, config }, events) {
    if (!queues) throw new Error('events.fanout: the webhooks consumer needs the queues (WorkerDeps.queues)');
    return webhooksConsumer.handle({ sql, queues, config }, events);
  },
};

/**
 * Every consumer of the product events, each handling each event once (product_event_handled).
 * A new one starts with the events of the past week (fanoutWindowDays) it has not handled.
 */
export const consumers: readonly Consumer[] = [alertsConsumer, webhooks];
