// @robot-mcp-kit/redis/receiver — the app side: Redis adapters of the receiver's ports, shared by
// several app instances (a dedupe store: each event reaches onEvent once; per-task seq/gap state).
// Needs @robot-mcp-kit/receiver (an optional peer dependency: only this entry imports it). Loads
// nothing of the server side.

export { RedisDedupeStore } from '../redis-dedupe.store.js';
export { createRedisDedupeStore } from '../redis-dedupe.factory.js';
export type { RedisClient, RedisDedupeStats } from '../redis-dedupe.store.js';
export type { CreateRedisDedupeStoreOptions } from '../redis-dedupe.factory.js';
export type { RedisDedupeOptions } from '../redis-dedupe.options.js';

export { RedisSeqStateStore } from '../redis-seq-state.store.js';
export type { RedisSeqStateStats } from '../redis-seq-state.store.js';
export { createRedisSeqStateStore } from '../redis-seq-state.factory.js';
export type { CreateRedisSeqStateStoreOptions } from '../redis-seq-state.factory.js';
export type { RedisSeqStateOptions } from '../redis-seq-state.options.js';
