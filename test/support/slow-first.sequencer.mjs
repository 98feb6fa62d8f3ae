// Jest test sequencer: the suites known to be slow (real processes, npm install) start first, so
// they overlap with the many quick suites instead of forming a tail at the end of the run. Within
// each group Jest's own order applies (failed first, then by recorded duration or file size).
import Sequencer from '@jest/test-sequencer';

const BaseSequencer = Sequencer.default ?? Sequencer;

/**
 * Path fragments of the slow suites, slowest first (kept in step with jest.config.ts's projects).
 * Without Jest's cache (a fresh checkout, CI) the rest go by file size, which put the replica, client
 * and broker process suites — each a minute or so of children and leases — at the end of the run,
 * one after another on one worker: a tail of minutes. Listed, they start early, overlapping the
 * many quick unit suites on the other worker.
 */
export const SLOW_FIRST = [
  '/test/generator.integration.test.ts',
  '/packages/create-robot-mcp-server/test/project.generator.test.ts',
  '/packages/cli/test/add-tool/add-tool.two-servers.test.ts',
  '/test/reliability/sigterm.test.ts',
  '/examples/chat-app-receiver/test/sleeper-to-receiver.e2e.test.ts',
  '/examples/chat-app-receiver/test/chat-app-receiver.e2e.test.ts',
  '/test/demo.test.ts',
  '/examples/chat-app-receiver/test/server-connections.test.ts',
  '/packages/cli/test/add-tool/',
  '/packages/redis/test/replicas/',
  '/test/clients/',
  '/test/observability/navigation-run.test.ts',
  '/packages/redis/test/outbox-kill9.test.ts',
  '/packages/brokers/test/sleeper-over-brokers.test.ts',
  '/packages/brokers/test/sleeper-restart.test.ts',
  '/packages/brokers/test/broker-restart.test.ts',
  '/packages/brokers/test/broker-durability.test.ts',
];

const rank = (path) => {
  const index = SLOW_FIRST.findIndex((fragment) => path.replaceAll('\\', '/').includes(fragment));
  return index === -1 ? SLOW_FIRST.length : index;
};

export default class SlowFirstSequencer extends BaseSequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const position = new Map(ordered.map((test, index) => [test, index]));
    return [...ordered].sort((a, b) => rank(a.path) - rank(b.path) || position.get(a) - position.get(b));
  }
}
