import { describe, expect, it } from '@jest/globals';
import { taskStoreSetting } from '../../src/store/task-store.config.js';

const URL = 'redis://127.0.0.1:6379/0';

describe('the secret the task store MAC key is derived from', () => {
  it('is RMK_STORE_KEY, else RVC_EVENT_SECRET, else none (store contents then unauthenticated)', () => {
    const event = 'event-secret-0123456789abcdef0123456789';
    const store = 'store-key-0123456789abcdef0123456789';
    expect(taskStoreSetting({ RMK_STORE: URL, RVC_EVENT_SECRET: event }, undefined)).toEqual({
      url: URL,
      secret: event,
    });
    expect(
      taskStoreSetting({ RMK_STORE: URL, RVC_EVENT_SECRET: event, RMK_STORE_KEY: store }, undefined),
    ).toEqual({ url: URL, secret: store });
    expect(taskStoreSetting({ RMK_STORE: URL, RVC_EVENT_SECRET: '  ' }, undefined)).toEqual({ url: URL });
  });

  it('is the settings secret when the store option gives one', () => {
    const setting = taskStoreSetting({ RVC_EVENT_SECRET: 'from-env' }, { url: URL, secret: 'given' });
    expect(setting).toEqual({ url: URL, secret: 'given' });
  });
});
