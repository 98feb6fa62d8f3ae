// @robot-mcp-kit/redis/server — the robot side: Redis adapters of core's store ports, shared by the
// replicas of a server (a task store with leases and cross-replica cancellation, a durable event
// outbox on Redis Streams). `@robot-mcp-kit/server` loads this entry when RMK_STORE is set. Imports
// nothing of @robot-mcp-kit/receiver.

export type { KitRedisClient as RedisClient } from '../redis.scripts.js';
/** The kit's Lua scripts as node-redis registers them (`createClient({ scripts: KIT_SCRIPTS })`). */
export { KIT_SCRIPTS } from '../redis.scripts.js';

export { RedisTaskStore } from '../redis-task.store.js';
export type { RedisTaskStoreStats } from '../redis-task.store.js';
export { createRedisTaskStore } from '../redis-task.factory.js';
export type { CreateRedisTaskStoreOptions } from '../redis-task.factory.js';
export type { RedisTaskStoreOptions } from '../redis-task-store.options.js';

export { RedisEventOutbox, OUTBOX_GROUP } from '../redis-event.outbox.js';
export type { RedisEventOutboxStats } from '../redis-event.outbox.js';
export { createRedisEventOutbox, redisEventOutbox } from '../redis-outbox.factory.js';
export type { CreateRedisEventOutboxOptions } from '../redis-outbox.factory.js';
export type { OutboxFence, RedisEventOutboxOptions } from '../redis-outbox.options.js';
/** The task store port's carried write, also exported here (its home is `@robot-mcp-kit/core/store`). */
export type { CarriedOutcome, CarriedTaskWrite } from '@robot-mcp-kit/core/store';
