import { type Transport, type TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, type MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/**
 * One concern of the kit on the MCP message path (the JSON guard, tracing, the task-handle shape),
 * written once for both SDK generations: a {@link PipelineTransport} runs it below a session or a
 * stdio connection, `runExchange` below one 2026-07-28 HTTP exchange.
 */
export interface MessageStage {
  /**
   * Sees an inbound message before the SDK: call `next` to hand it on (inside a context if the
   * stage wants one), `reply` to answer it instead, or neither to drop it.
   */
  inbound?(message: JSONRPCMessage, next: () => void, reply: (answer: JSONRPCMessage) => void): void;
  /**
   * Sees (and may replace) an outbound answer — a result or an error response — before the wire.
   * The requests and notifications the server sends pass the stages as they are.
   */
  outbound?(message: JSONRPCMessage): JSONRPCMessage;
  /** The connection or exchange ended: what is still open ends here. */
  closed?(): void;
}

/** Runs `message` through the inbound side of `stages`, then `deliver`. */
export function runInbound(
  stages: readonly MessageStage[],
  message: JSONRPCMessage,
  deliver: (message: JSONRPCMessage) => void,
  reply: (answer: JSONRPCMessage) => void,
): void {
  const step = (index: number): void => {
    if (index === stages.length) return deliver(message);
    const stage = stages[index]!;
    if (!stage.inbound) return step(index + 1);
    stage.inbound(message, () => step(index + 1), reply);
  };
  step(0);
}

/** Runs an answer through the outbound side of `stages`, innermost (last) first; other messages pass. */
export function runOutbound(stages: readonly MessageStage[], message: JSONRPCMessage): JSONRPCMessage {
  if (!('result' in message) && !('error' in message)) return message;
  let out: JSONRPCMessage = message;
  for (let i = stages.length - 1; i >= 0; i--) out = stages[i]!.outbound?.(out) ?? out;
  return out;
}

/**
 * A kit-owned `Transport` composed around the SDK's: the SDK connects to it (setting its
 * `onmessage`, `onclose`, `onerror`) and it hands every inbound message through the
 * {@link MessageStage}s before the SDK sees it, and every `send` through them before the wire.
 * Nothing of the inner transport is redefined: its own handlers are chained at {@link start}.
 */
export class PipelineTransport implements Transport {
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  setProtocolVersion?: (version: string) => void;

  constructor(
    readonly inner: Transport,
    private readonly stages: readonly MessageStage[],
  ) {
    if (inner.setProtocolVersion) this.setProtocolVersion = (version) => inner.setProtocolVersion?.(version);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  async start(): Promise<void> {
    const { inner } = this;
    const previousClose = inner.onclose;
    const previousError = inner.onerror;
    inner.onclose = () => {
      previousClose?.();
      for (const stage of this.stages) stage.closed?.();
      this.onclose?.();
    };
    inner.onerror = (error) => {
      previousError?.(error);
      this.onerror?.(error);
    };
    inner.onmessage = (message, extra) => {
      runInbound(
        this.stages,
        message,
        (passed) => this.onmessage?.(passed, extra),
        (answer) => void this.send(answer).catch((err: unknown) => this.onerror?.(asError(err))),
      );
    };
    await inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(runOutbound(this.stages, message), options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
