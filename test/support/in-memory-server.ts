import { type TaskEvent } from '@robot-mcp-kit/core';
import { ManualClock } from '@robot-mcp-kit/core/testing';
import { type CapabilityServerClass } from '@robot-mcp-kit/server';
import { connectTestClient, type TestClient } from '@robot-mcp-kit/server/testing';

export { textOf } from '@robot-mcp-kit/server/testing';

/**
 * The server under test on a ManualClock, with an SDK client over an in-memory pair: a thin layer
 * over the published `connectTestClient` of @robot-mcp-kit/server (shared by the examples' tests).
 */
export interface Harness extends TestClient {
  readonly clock: ManualClock;
}

export async function connect<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: Parameters<typeof connectTestClient<T>>[1] = {},
): Promise<Harness> {
  const clock = new ManualClock();
  return Object.assign(await connectTestClient(ServerClass, { clock, ...options }), { clock });
}

export const typesOf = (events: readonly TaskEvent[]): string[] => events.map((e) => e.type);
