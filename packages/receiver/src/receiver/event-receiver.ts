import { ContractValidationError, parseTaskEvent, type TaskEvent } from '@robot-mcp-kit/core';
import { context } from '@opentelemetry/api';
import { createNodeHandler, type NodeHttpHandler } from './node-http.handler.js';
import { type ResolvedOptions, resolveOptions } from './receiver.options.js';
import { responses } from './receiver.responses.js';
import {
  type EventReceiverOptions,
  type RawEventRequest,
  type ReceiverResponse,
  type ReceiverStats,
  type SeqGap,
  type TrackedTask,
} from './receiver.types.js';
import { authenticate, header, loggable, precheck, signaturePrefix } from './request-checks.js';
import { type Outcome, SeqTracker } from './seq-tracker.js';
import { describeProcessSpan, endProcessSpan, startProcessSpan } from './receiver.telemetry.js';

/**
 * Creates the app side of the event contract (spec §3.1): verifies, dedupes, orders and
 * delivers signed TaskEvent POSTs. Mount `receiver.handler` on node:http, or use the Express
 * and Fastify adapters.
 *
 * @example
 * const receiver = createEventReceiver({ secrets: { sleeper: process.env.SLEEPER_SECRET! }, onEvent });
 * http.createServer(receiver.handler).listen(8000, '127.0.0.1');
 * @throws ConfigError when an option is missing or out of range.
 */
export function createEventReceiver(options: EventReceiverOptions): EventReceiver {
  return new EventReceiver(options);
}

/** See {@link createEventReceiver}. */
export class EventReceiver {
  /** A plain node:http request handler: `http.createServer(receiver.handler)`. */
  readonly handler: NodeHttpHandler;
  private readonly options: ResolvedOptions;
  private readonly tracker: SeqTracker;
  private readonly counts = {
    requests: 0,
    delivered: 0,
    duplicates: 0,
    failed: 0,
    gaps: 0,
    late: 0,
    dedupeFull: 0,
    dedupeUnavailable: 0,
    seqStateUnavailable: 0,
  };
  private lastFullWarnAt = Number.NEGATIVE_INFINITY;
  private readonly byStatus: Record<number, number> = {};
  private closed = false;

  constructor(options: EventReceiverOptions) {
    this.options = resolveOptions(options);
    const { clock, logger } = this.options;
    this.tracker = new SeqTracker({
      deliver: (event, late) => this.deliver(event, late),
      reportGap: (gap) => this.reportGap(gap),
      holdMs: this.options.holdMs,
      maxTasks: this.options.maxTasks,
      finishedTtlMs: this.options.finishedTtlMs,
      clock,
      logger,
      seqState: this.options.seqState,
    });
    this.handler = createNodeHandler(this, logger);
  }

  /** The body size limit in bytes. */
  get maxBodyBytes(): number {
    return this.options.maxBodyBytes;
  }

  /**
   * The checks that need only the method and headers (method, content type, declared length),
   * without counting or logging: adapters call it to decide whether to read the body at all.
   */
  precheck(method: string | undefined, headers: RawEventRequest['headers']): ReceiverResponse | undefined {
    const failure = precheck(method, headers, this.options.maxBodyBytes);
    if (!failure) return undefined;
    if (failure.status === 405) return responses.methodNotAllowed();
    if (failure.status === 415) return responses.unsupportedMediaType(failure.reason);
    return responses.payloadTooLarge(this.options.maxBodyBytes);
  }

  /**
   * Judges one request and, if it holds a new valid event, delivers it: resolves once `onEvent`
   * accepted it (200) or refused it (500). Never rejects. With an OpenTelemetry SDK registered the
   * request is a `process <event type>` span, the child of the poster's delivery span when the
   * request carries a `traceparent`, and `onEvent` runs with it active (`trace.getActiveSpan()`).
   */
  async receive(request: RawEventRequest): Promise<ReceiverResponse> {
    let response: ReceiverResponse;
    const traced = startProcessSpan(request.headers);
    try {
      response = await (traced
        ? context.with(traced.context, this.judge, this, request)
        : this.judge(request));
    } catch (err) {
      this.options.logger.error('event request failed unexpectedly', { error: errorText(err) });
      response = responses.internal();
    }
    if (traced) endProcessSpan(traced.span, response.status);
    this.counts.requests += 1;
    this.byStatus[response.status] = (this.byStatus[response.status] ?? 0) + 1;
    return response;
  }

  /** Tasks seen whose end was not seen: `reconciler.reconcile({ tracked: receiver.openTasks() })`. */
  openTasks(): TrackedTask[] {
    return this.tracker.openTasks();
  }

  stats(): ReceiverStats {
    return {
      ...this.counts,
      held: this.tracker.held,
      trackedTasks: this.tracker.size,
      remembered: this.options.dedupe.size,
      coalesced: this.tracker.coalesced,
      byStatus: { ...this.byStatus },
    };
  }

  /**
   * Stops accepting events (later requests get 503, so posters retry elsewhere or later),
   * delivers the events held in in-order mode and waits for deliveries in progress.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.tracker.flush();
  }

  private async judge(request: RawEventRequest): Promise<ReceiverResponse> {
    const { logger } = this.options;
    if (this.closed) return responses.closing();
    const early = this.precheck(request.method, request.headers);
    if (early) {
      logger.warn('rejected an event request', { status: early.status, method: loggable(request.method) });
      return early;
    }
    if (request.bodyTooLarge === true || request.body.length > this.options.maxBodyBytes) {
      logger.warn('rejected an event request: body too large', { max_bytes: this.options.maxBodyBytes });
      return responses.payloadTooLarge(this.options.maxBodyBytes);
    }
    const auth = authenticate(
      request.headers,
      request.body,
      this.options.secrets,
      this.options.maxSkewS,
      this.options.clock.now(),
    );
    if (!auth.ok) {
      logger.warn('rejected an event request: not authenticated', {
        reason: auth.reason,
        server: loggable(auth.server),
        timestamp: loggable(header(request.headers, 'x-rvc-timestamp'), 20),
        sig_prefix: signaturePrefix(request.headers),
      });
      return responses.unauthorized(auth.reason);
    }
    let event: TaskEvent;
    try {
      event = parseTaskEvent(request.body);
    } catch (err) {
      if (!(err instanceof ContractValidationError)) throw err;
      logger.warn('rejected an invalid event', {
        server: auth.server,
        issues: err.issues.map((i) => i.field),
      });
      return responses.invalidEvent(err.issues);
    }
    if (event.server !== auth.server) {
      logger.warn('rejected an event signed by another server', {
        server: auth.server,
        event_id: event.event_id,
      });
      const problem = `server must equal the X-RVC-Server header "${auth.server}", got "${loggable(event.server)}"`;
      return responses.invalidEvent([{ field: 'server', problems: [problem] }]);
    }
    describeProcessSpan(event);
    return this.dedupeAndDeliver(event);
  }

  private async dedupeAndDeliver(event: TaskEvent): Promise<ReceiverResponse> {
    const meta = { server: event.server, task_id: event.task_id, event_id: event.event_id, seq: event.seq };
    const claim = await this.options.dedupe.claim(`${event.server}\u0000${event.event_id}`);
    if (claim.state === 'full') return this.refuseFull(claim.retryAfterS, meta);
    if (claim.state === 'unavailable') {
      this.counts.dedupeUnavailable += 1;
      return responses.dedupeUnavailable(claim.retryAfterS);
    }
    if (claim.state === 'seen' || (claim.state === 'in_flight' && (await claim.outcome))) {
      this.counts.duplicates += 1;
      this.options.logger.debug('duplicate event answered without delivery', meta);
      return responses.duplicate();
    }
    if (claim.state === 'in_flight') return responses.deliveryFailed();
    const outcome: Outcome = await this.tracker.submit(event);
    await claim.settle(outcome.delivered);
    if (outcome.delivered) return responses.accepted();
    if (outcome.retryAfterS !== undefined) {
      this.counts.seqStateUnavailable += 1;
      return responses.seqStateUnavailable(outcome.retryAfterS);
    }
    return responses.deliveryFailed();
  }

  /** 503 + Retry-After: the dedupe store cannot take another id without forgetting a live one. */
  private refuseFull(retryAfterS: number, meta: Record<string, unknown>): ReceiverResponse {
    this.counts.dedupeFull += 1;
    const now = this.options.clock.now();
    if (now - this.lastFullWarnAt >= 10_000) {
      this.lastFullWarnAt = now;
      this.options.logger.warn(
        'dedupe store full of ids inside the replay window: refusing events with 503 (raise dedupe.maxBytes / dedupe.max)',
        { ...meta, retry_after_s: retryAfterS, refused_so_far: this.counts.dedupeFull },
      );
    }
    return responses.dedupeFull(retryAfterS);
  }

  private async deliver(event: TaskEvent, late: boolean): Promise<Outcome> {
    try {
      await this.options.onEvent(event, { server: event.server, late });
    } catch (error) {
      this.counts.failed += 1;
      this.options.logger.error('onEvent refused an event; answering 500 so that the poster retries', {
        server: event.server,
        task_id: event.task_id,
        event_id: event.event_id,
        seq: event.seq,
        error: errorText(error),
      });
      return { delivered: false, error };
    }
    this.counts.delivered += 1;
    if (late) this.counts.late += 1;
    if (this.options.logger.isLevelEnabled('debug'))
      this.options.logger.debug('event delivered', {
        task_id: event.task_id,
        seq: event.seq,
        type: event.type,
        late,
      });
    return { delivered: true };
  }

  private reportGap(gap: SeqGap): void {
    this.counts.gaps += 1;
    const { logger, onGap } = this.options;
    logger.warn('seq gap: events are missing; reconcile the task', { ...gap });
    if (!onGap) return;
    const complain = (err: unknown): void => {
      logger.error('onGap failed', { task_id: gap.task_id, error: errorText(err) });
    };
    try {
      const result: unknown = onGap(gap);
      if (result instanceof Promise) result.catch(complain);
    } catch (err) {
      complain(err);
    }
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
