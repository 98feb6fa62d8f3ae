// Jest test sequencer: the suites known to be slow (real processes, npm install) start first, so
// they overlap with the many quick suites instead of forming a tail at the end of the run. Within
// each group Jest's own order applies (failed first, then by recorded duration or file size).
import Sequencer from '@jest/test-sequencer';

const BaseSequencer = Sequencer.default ?? Sequencer;

/** Path fragments of the slow suites, slowest first (kept in step with jest.config.ts's projects). */
export const SLOW_FIRST = [
  '/test/generator.integration.test.ts',
  '/test/reliability/sigterm.test.ts',
  '/examples/chat-app-receiver/test/sleeper-to-receiver.e2e.test.ts',
  '/examples/chat-app-receiver/test/chat-app-receiver.e2e.test.ts',
  '/test/demo.test.ts',
  '/examples/chat-app-receiver/test/server-connections.test.ts',
  '/packages/cli/test/add-tool/',
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
