import { ConfigError } from '@robot-mcp-kit/core';
import { createRedisDedupeStore, createRedisSeqStateStore } from '@robot-mcp-kit/redis/receiver';
import { createRedisEventOutbox, createRedisTaskStore } from '@robot-mcp-kit/redis/server';
import { countingListener } from './redis-test.helpers.js';

// Every factory checks its own options before it connects: a bad option is a ConfigError naming
// it, and no connection was opened (none left behind to keep the process alive, none to close).
const BAD: ReadonlyArray<[string, (url: string) => Promise<unknown>, RegExp]> = [
  ['createRedisDedupeStore', (url) => createRedisDedupeStore({ url, keyPrefix: '' }), /keyPrefix/],
  ['createRedisDedupeStore', (url) => createRedisDedupeStore({ url, claimTtlS: 0 }), /claimTtlS/],
  ['createRedisSeqStateStore', (url) => createRedisSeqStateStore({ url, keyPrefix: '' }), /keyPrefix/],
  ['createRedisTaskStore', (url) => createRedisTaskStore({ url, keyPrefix: '' }), /keyPrefix/],
  ['createRedisTaskStore', (url) => createRedisTaskStore({ url, leaseMs: -1 }), /leaseMs/],
  [
    'createRedisEventOutbox',
    (url) => createRedisEventOutbox({ url, serverName: 'sleeper', replicaId: 'a b' }),
    /replicaId/,
  ],
];

describe('Redis adapter factories with a bad option', () => {
  it.each(BAD)('%s fails naming the option, before any connection', async (_name, create, field) => {
    const listener = await countingListener();
    try {
      const error = await create(listener.url).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toMatch(field);
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });
});
