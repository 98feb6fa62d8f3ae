import { type Logger, silentLogger } from '../logging/logger.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';

/**
 * The transport used when `RVC_CALLBACK_URL` is unset (spec §3.4): accepts every event and only
 * logs it at debug (its ids and size, never its body: the line costs the same for any event),
 * so a server can run standalone in development.
 */
export class NoopEventTransport implements EventTransport {
  readonly description = 'noop';
  private readonly logger: Logger;

  constructor(options: { logger?: Logger } = {}) {
    this.logger = options.logger ?? silentLogger;
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    const { event } = delivery;
    this.logger.debug('event not pushed (RVC_CALLBACK_URL is unset)', {
      event_id: event.event_id,
      task_id: event.task_id,
      seq: event.seq,
      type: event.type,
      bytes: delivery.body.length,
    });
    return { ok: true };
  }

  async close(): Promise<void> {}
}
