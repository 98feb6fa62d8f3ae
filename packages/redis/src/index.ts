// Redis adapters of robot-mcp-kit ports (issue 18: scale past one machine).

// Receiver side: a dedupe store shared by several app instances
export { RedisDedupeStore } from './redis-dedupe.store.js';
export type { RedisClient, RedisDedupeStats } from './redis-dedupe.store.js';
/** The kit's Lua scripts as node-redis registers them (`createClient({ scripts: KIT_SCRIPTS })`). */
export { KIT_SCRIPTS } from './redis.scripts.js';
export {
  createRedisDedupeStore,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_COMMAND_TIMEOUT_MS,
} from './redis-dedupe.factory.js';
export type { CreateRedisDedupeStoreOptions } from './redis-dedupe.factory.js';
export {
  DEFAULT_KEY_PREFIX,
  DEFAULT_CLAIM_TTL_S,
  DEFAULT_IN_FLIGHT_WAIT_MS,
} from './redis-dedupe.options.js';
export { DEFAULT_UNAVAILABLE_RETRY_AFTER_S } from './redis-refusals.js';
export type { RedisDedupeOptions } from './redis-dedupe.options.js';

// Receiver side: per-task seq/gap state shared by several app instances
export { RedisSeqStateStore } from './redis-seq-state.store.js';
export type { RedisSeqStateStats } from './redis-seq-state.store.js';
export { createRedisSeqStateStore } from './redis-seq-state.factory.js';
export type { CreateRedisSeqStateStoreOptions } from './redis-seq-state.factory.js';
export { DEFAULT_SEQ_KEY_PREFIX, DEFAULT_SEQ_IDLE_TTL_S } from './redis-seq-state.options.js';
export type { RedisSeqStateOptions } from './redis-seq-state.options.js';

// Server side: a task store shared by several server replicas
export { RedisTaskStore } from './redis-task.store.js';
export type { RedisTaskStoreStats } from './redis-task.store.js';
export { createRedisTaskStore } from './redis-task.factory.js';
export type { CreateRedisTaskStoreOptions } from './redis-task.factory.js';
export {
  DEFAULT_TASK_KEY_PREFIX,
  DEFAULT_FINISHED_TTL_S,
  DEFAULT_LEASE_MS,
} from './redis-task-store.options.js';
export type { RedisTaskStoreOptions } from './redis-task-store.options.js';
export { lostTask } from './task-lease.js';

// Server side: a durable event outbox on Redis Streams, shared by the replicas of a server
export { RedisEventOutbox, OUTBOX_GROUP } from './redis-event.outbox.js';
export type { RedisEventOutboxStats } from './redis-event.outbox.js';
export { createRedisEventOutbox, redisEventOutbox } from './redis-outbox.factory.js';
export type { CreateRedisEventOutboxOptions } from './redis-outbox.factory.js';
export {
  DEFAULT_OUTBOX_KEY_PREFIX,
  DEFAULT_CLAIM_IDLE_MS,
  DEFAULT_OUTBOX_MAX_ENTRIES,
  DEFAULT_OUTBOX_MAX_BYTES,
  DEFAULT_OUTBOX_RETRY_BYTES,
} from './redis-outbox.options.js';
export type { OutboxFence, RedisEventOutboxOptions } from './redis-outbox.options.js';
