import { alertsConsumer } from '../alerts/alerts.consumer.js';
import type { Consumer } from './consumer.js';

/**
 * Every consumer of the product events, each handling each event once (product_event_handled).
 * A new one (webhooks) is added here; it starts with the events of the past week
 * (fanoutWindowDays) it has not handled.
 */
export const consumers: readonly Consumer[] = [alertsConsumer];
