import { randomUUID } from 'node:crypto';
import { type RedisClient } from '@robot-mcp-kit/redis/receiver';
import { until } from '../../../../test/support/until.js';
import { connectAdmin } from '../redis-test.helpers.js';

/** A command a client sent (a line of the feed not run by a script: `[<db> lua]`). */
export const sentByClient = (line: string): boolean => !/^\S+ \[\d+ lua\]/.test(line);

/** What a Redis's MONITOR feed showed: each command Redis ran, as a line, in the order it ran them. */
export class CommandFeed {
  readonly lines: string[] = [];

  private constructor(private readonly monitor: RedisClient) {}

  /** Starts watching the Redis at `url` (a Redis of the test's own: its feed is that test's alone). */
  static async open(url: string): Promise<CommandFeed> {
    const monitor = await connectAdmin(url);
    const feed = new CommandFeed(monitor);
    await monitor.monitor((line: string) => feed.lines.push(line));
    return feed;
  }

  /**
   * Sends a marker command on `admin` and resolves with its index in the feed once the feed shows
   * it: Redis runs commands one at a time, so every command it ran before the marker is in by then.
   */
  async mark(admin: RedisClient): Promise<number> {
    const marker = `round-trip-marker:${randomUUID()}`;
    await admin.echo(marker);
    let at = -1;
    await until(() => (at = this.lines.findIndex((line) => line.includes(marker))) >= 0, 'the marker');
    return at;
  }

  /** The commands clients sent between two marks (those a script ran left out). */
  sentBetween(from: number, to: number): string[] {
    return this.lines.slice(from + 1, to).filter(sentByClient);
  }

  close(): Promise<void> {
    return this.monitor.close();
  }
}
