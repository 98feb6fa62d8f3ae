import { availableParallelism } from 'node:os';
import type { Config } from 'jest';

// Workspace packages resolve to their TypeScript sources, so tests never run a stale dist/.
const workspaceSources: Record<string, string> = {
  '^@robot-mcp-kit/core$': '<rootDir>/packages/core/src/index.ts',
  '^@robot-mcp-kit/core/telemetry$': '<rootDir>/packages/core/src/telemetry/index.ts',
  '^@robot-mcp-kit/core/support$': '<rootDir>/packages/core/src/support/index.ts',
  '^@robot-mcp-kit/core/testing$': '<rootDir>/packages/core/src/testing/index.ts',
  '^@robot-mcp-kit/core/store$': '<rootDir>/packages/core/src/store/index.ts',
  '^@robot-mcp-kit/core/transport$': '<rootDir>/packages/core/src/transport/index.ts',
  '^@robot-mcp-kit/core/host$': '<rootDir>/packages/core/src/host/index.ts',
  '^@robot-mcp-kit/core/rules$': '<rootDir>/packages/core/src/rules/index.ts',
  '^@robot-mcp-kit/server$': '<rootDir>/packages/server/src/index.ts',
  '^@robot-mcp-kit/server/testing$': '<rootDir>/packages/server/src/testing/index.ts',
  '^@robot-mcp-kit/server/advanced$': '<rootDir>/packages/server/src/advanced/index.ts',
  '^@robot-mcp-kit/receiver$': '<rootDir>/packages/receiver/src/index.ts',
  '^@robot-mcp-kit/brokers$': '<rootDir>/packages/brokers/src/index.ts',
  '^@robot-mcp-kit/redis/server$': '<rootDir>/packages/redis/src/server/index.ts',
  '^@robot-mcp-kit/redis/receiver$': '<rootDir>/packages/redis/src/receiver/index.ts',
  '^@robot-mcp-kit/ros$': '<rootDir>/packages/ros/src/index.ts',
  '^@robot-mcp-kit/ros/testing$': '<rootDir>/packages/ros/src/testing/index.ts',
  '^@robot-mcp-kit/cli$': '<rootDir>/packages/cli/src/index.ts',
  '^create-robot-mcp-server$': '<rootDir>/packages/create-robot-mcp-server/src/index.ts',
};

/**
 * The process-level suites: they run built examples (`dist/`, so `npm run build` first), the demo,
 * npm, the conformance suite, a browser or private brokers as real child processes. They make the
 * `process` project (`--selectProjects process`, `npm run test:process`, `npm run test:stress`);
 * everything else is the `unit` project. One list of path patterns (regular expressions) for both.
 */
export const PROCESS_SUITES = [
  '/test/generator\\.integration\\.test\\.ts$',
  '/test/demo\\.test\\.ts$',
  '/test/reliability/(sigterm|stdin-eof|stdin-drain|preempt-pipelined)\\.test\\.ts$',
  '/test/(network|conformance)/[^/]+\\.test\\.ts$',
  '/examples/[^/]+/test/[^/]+\\.e2e\\.test\\.ts$',
  '/examples/[^/]+/test/transports\\.test\\.ts$',
  '/examples/chat-app-receiver/test/server-connections\\.test\\.ts$',
  '/examples/fleet/test/fleet\\.test\\.ts$',
  '/packages/server/test/features/stdio-agent\\.test\\.ts$',
  '/packages/server/test/runtime/lazy-transports\\.test\\.ts$',
  '/packages/server/test/public-api\\.exports\\.test\\.ts$',
  '/test/architecture/public-api\\.exports\\.test\\.ts$',
  '/packages/server/test/schema/author-class-validator\\.test\\.ts$',
  '/packages/server/test/runtime/(stdio-eras|stdio-tasks-extension|stdio-logging)\\.test\\.ts$',
  '/packages/brokers/test/(sleeper-over-brokers|sleeper-restart|broker-restart|broker-durability|secret-free-errors)\\.test\\.ts$',
  '/packages/redis/test/outbox-kill9\\.test\\.ts$',
  '/packages/redis/test/replicas/[^/]+\\.test\\.ts$',
  '/packages/cli/test/add-tool/add-tool\\.two-servers\\.test\\.ts$',
  '/packages/create-robot-mcp-server/test/ros-template\\.process\\.test\\.ts$',
  '/test/clients/[^/]+\\.test\\.ts$',
];

const shared: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  setupFiles: ['reflect-metadata'],
  moduleNameMapper: {
    ...workspaceSources,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.jest.json', diagnostics: false }],
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};

const config: Config = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/packages/*/test/**/*.test.ts',
        '<rootDir>/examples/*/test/**/*.test.ts',
        '<rootDir>/test/**/*.test.ts',
      ],
      // Jest has no "testMatch minus"; the process suites are ignored here by their path.
      testPathIgnorePatterns: [...shared.testPathIgnorePatterns!, ...PROCESS_SUITES],
    },
    {
      ...shared,
      displayName: 'process',
      testMatch: undefined,
      testRegex: PROCESS_SUITES,
      // Their code under test runs in the children, which coverage does not see; instrumenting the
      // few kit modules they load in the worker only cost CPU on a machine they keep busy.
      coveragePathIgnorePatterns: ['.*'],
    },
  ],
  // Process-level suites mostly wait on their children: four workers even on a 2-core machine
  // (Jest's default there is one), so they overlap with the CPU-bound unit suites. On the idle 2-core
  // machine the whole `npm test` took 554 s with two workers and 450 s with three (same commit, back
  // to back); later, with the process suites uninstrumented, 537 s with three and 416 s with four.
  maxWorkers: Math.max(4, availableParallelism()),
  // A worker's exit takes 0.3-0.9 s here, over 2 s with coverage and a busy core: every worker
  // reaches 'exit' within 1 ms of Jest's end message, the rest is tearing down a heap of ts-jest,
  // the SDK and coverage counters. Jest's default patience is 0.5 s, so it printed "failed to exit
  // gracefully" for workers that leaked nothing. A real leak (a socket or timer left open) keeps a
  // worker forever and is still reported after 10 s.
  workerGracefulExitTimeout: 10_000,
  testSequencer: '<rootDir>/test/support/slow-first.sequencer.mjs',
  reporters: ['default', '<rootDir>/test/support/slowest-suites.reporter.mjs'],
  collectCoverageFrom: ['packages/*/src/**/*.ts', 'examples/*/src/**/*.ts', '!**/*.d.ts'],
  coverageReporters: ['text-summary', 'lcov'],
  coverageThreshold: { global: { lines: 80 } },
  // A safety net against hangs, not a timing assertion: every wait inside a test has its own deadline.
  testTimeout: 60_000,
};

export default config;
