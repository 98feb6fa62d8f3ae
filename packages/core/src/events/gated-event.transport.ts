import { type TaskEvent } from '../models/task-event.model.js';
import { type DeliveryOutcome, type EventDelivery, type EventTransport } from './event.types.js';

/**
 * An {@link EventTransport} that sends only when its gate allows (the poster's `deliveryGate`):
 * an attempt the gate refuses is a failed attempt, never sent.
 */
export class GatedEventTransport implements EventTransport {
  readonly description: string;

  constructor(
    private readonly inner: EventTransport,
    private readonly gate: (event: TaskEvent) => Promise<boolean>,
  ) {
    this.description = inner.description;
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (!(await this.gate(delivery.event))) {
      return { ok: false, error: 'not sent: this replica no longer owns its tasks (delivery gate closed)' };
    }
    return this.inner.send(delivery);
  }

  open(): Promise<void> {
    return this.inner.open?.() ?? Promise.resolve();
  }

  close(): Promise<void> {
    return this.inner.close?.() ?? Promise.resolve();
  }
}
