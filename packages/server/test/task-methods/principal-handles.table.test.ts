import { describe, expect, it } from '@jest/globals';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { PrincipalHandleTable } from '../../src/task-methods/principal-handles.table.js';

describe('PrincipalHandleTable (SEP-2663 task handles)', () => {
  it('hands out distinct UUID handles, found only by the principal that created them', () => {
    const index = new PrincipalHandleTable(new ManualClock());
    const alice = index.add('rove-000001', 'alice', 60_000, 1000);
    const anonymous = index.add('rove-000002', undefined, 60_000, 1000);
    expect(alice.handle).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(anonymous.handle).not.toBe(alice.handle);
    expect(index.get(alice.handle, 'alice')?.taskId).toBe('rove-000001');
    expect(index.get(alice.handle, 'bob')).toBeUndefined();
    expect(index.get(alice.handle, undefined)).toBeUndefined();
    expect(index.get(anonymous.handle, undefined)?.taskId).toBe('rove-000002');
    expect(index.get(anonymous.handle, 'alice')).toBeUndefined();
    expect(index.get('rove-000001', 'alice')).toBeUndefined();
  });

  it('forgets a handle after its TTL and keeps at most maxEntries (oldest first)', async () => {
    const clock = new ManualClock();
    const index = new PrincipalHandleTable(clock, 2);
    const first = index.add('rove-000001', undefined, 10_000, 1000);
    await clock.advance(10_000);
    expect(index.get(first.handle, undefined)).toBeDefined();
    await clock.advance(1);
    expect(index.get(first.handle, undefined)).toBeUndefined();
    expect(index.size).toBe(0);

    const a = index.add('rove-00000a', undefined, 10_000, 1000);
    const b = index.add('rove-00000b', undefined, 10_000, 1000);
    const c = index.add('rove-00000c', undefined, 10_000, 1000);
    expect(index.size).toBe(2);
    expect(index.get(a.handle, undefined)).toBeUndefined();
    expect(index.get(b.handle, undefined)?.taskId).toBe('rove-00000b');
    expect(index.get(c.handle, undefined)?.taskId).toBe('rove-00000c');
  });
});
