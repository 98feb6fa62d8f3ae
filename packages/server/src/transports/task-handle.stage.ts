import { type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { type MessageStage } from './message-pipeline.transport.js';

/**
 * The 2026-07-28 tools/call answer that is a SEP-2663 task handle (`resultType: "task"`) leaves
 * without the empty `content` array the v2 SDK's tools/call normalization gives every result that
 * has none: the extension's result is `Result & Task`. Only answers to this connection's
 * tools/call requests are touched, and only an empty array is taken out.
 */
export function taskHandleStage(): MessageStage {
  const calls = new Set<RequestId>();
  return {
    inbound(message, next) {
      if ('method' in message && 'id' in message && message.method === 'tools/call') calls.add(message.id);
      next();
    },
    outbound(message) {
      if (!('result' in message) || !calls.delete(message.id)) return message;
      const { content, ...rest } = message.result as { content?: unknown; resultType?: unknown };
      if (rest.resultType !== 'task' || !Array.isArray(content) || content.length > 0) return message;
      return { ...message, result: rest };
    },
    closed: () => calls.clear(),
  };
}
