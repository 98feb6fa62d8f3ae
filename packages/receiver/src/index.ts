// The app side of the robot-mcp-kit contract: receive, verify, dedupe, order and reconcile.

// Receiver (spec §3.1, app side)
export { createEventReceiver, EventReceiver } from './receiver/event-receiver.js';
export type {
  EventReceiverOptions,
  EventHandler,
  EventContext,
  GapHandler,
  SeqGap,
  TrackedTask,
  ReceiverStats,
  RawEventRequest,
  ReceiverResponse,
  ReceiverResponseBody,
  HeaderBag,
} from './receiver/receiver.types.js';
export type { NodeHttpHandler } from './receiver/node-http.handler.js';
export type { DedupeStore, DedupeClaim } from './receiver/dedupe-store.port.js';
export { InMemoryDedupeStore } from './receiver/in-memory-dedupe.store.js';
export type { SeqStateStore, SeqBegin, SeqTaskRef } from './receiver/seq-state.port.js';
export { InMemorySeqStateStore } from './receiver/in-memory-seq-state.store.js';
export type { InMemorySeqStateStoreOptions } from './receiver/in-memory-seq-state.store.js';
export type { InMemoryDedupeStoreOptions } from './receiver/in-memory-dedupe.store.js';
export { coalescedSeqsOf } from './receiver/coalesced-seqs.js';
export {
  DEFAULT_MAX_SKEW_S,
  DEFAULT_DEDUPE_TTL_S,
  DEFAULT_FINISHED_TTL_S,
} from './receiver/receiver.options.js';

// Framework adapters (no runtime dependency on express or fastify)
export { expressEventReceiver } from './adapters/express.adapter.js';
export type { ExpressEventHandler } from './adapters/express.adapter.js';
export { fastifyEventReceiver } from './adapters/fastify.adapter.js';
export type {
  FastifyEventReceiverOptions,
  FastifyInstanceLike,
  FastifyRequestLike,
  FastifyReplyLike,
  FastifyRouteLike,
} from './adapters/fastify.adapter.js';

// Reconciliation (spec §3.3, app side)
export { Reconciler, SERVER_RESTARTED, serverRestartedTask } from './reconcile/reconciler.js';
export { ReconcileToolError } from './reconcile/tool-result.parser.js';
export type {
  ReconcilerOptions,
  ReconcileOptions,
  ReconcileReport,
  ReconcileError,
  ToolCaller,
} from './reconcile/reconcile.types.js';
