import { trace } from '@opentelemetry/api';
import { type DeliveryOutcome, type EventDelivery, type Logger } from '@robot-mcp-kit/core';
import { SEMCONV_ATTRIBUTES } from '@robot-mcp-kit/core/telemetry';
import { errorText } from './signed-message.js';

/** Where one publish goes, for the attempt's span: `messaging.system` and the topic or subject. */
export interface PublishTarget {
  readonly system: 'mqtt' | 'nats';
  readonly destination: string;
  /** The debug line of a publish that succeeded (default `event published`). */
  readonly done?: string;
}

/**
 * One publish of a broker transport (the part MQTT and JetStream share): runs `publish`, answers
 * `{ ok: true }` once it resolves and `{ ok: false }` with the error's text when it rejects (never
 * throws), logs at debug, and names the broker and destination on the attempt's span when traced.
 * `publish` resolves with what to add to the debug log line.
 */
export async function publishAttempt(
  delivery: EventDelivery,
  logger: Logger,
  target: PublishTarget,
  publish: () => Promise<Record<string, unknown> | undefined>,
): Promise<DeliveryOutcome> {
  const span = trace.getActiveSpan();
  if (span?.isRecording()) {
    span.setAttribute(SEMCONV_ATTRIBUTES.messagingSystem, target.system);
    span.setAttribute(SEMCONV_ATTRIBUTES.messagingDestinationName, target.destination);
  }
  const meta = { event_id: delivery.event.event_id, attempt: delivery.attempt };
  try {
    const more = await publish();
    if (logger.isLevelEnabled('debug')) logger.debug(target.done ?? 'event published', { ...meta, ...more });
    return { ok: true };
  } catch (err) {
    const error = errorText(err);
    logger.debug('event publish failed', { ...meta, error });
    return { ok: false, error };
  }
}
