import type { Config } from 'jest';

// Workspace packages resolve to their TypeScript sources, so tests never run a stale dist/.
const workspaceSources: Record<string, string> = {
  '^@robot-mcp-kit/core$': '<rootDir>/packages/core/src/index.ts',
  '^@robot-mcp-kit/server$': '<rootDir>/packages/server/src/index.ts',
  '^@robot-mcp-kit/receiver$': '<rootDir>/packages/receiver/src/index.ts',
  '^@robot-mcp-kit/brokers$': '<rootDir>/packages/brokers/src/index.ts',
  '^@robot-mcp-kit/redis$': '<rootDir>/packages/redis/src/index.ts',
  '^@robot-mcp-kit/cli$': '<rootDir>/packages/cli/src/index.ts',
  '^create-robot-mcp-server$': '<rootDir>/packages/create-robot-mcp-server/src/index.ts',
};

const config: Config = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  setupFiles: ['reflect-metadata'],
  moduleNameMapper: {
    ...workspaceSources,
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: false }],
  },
  testMatch: [
    '<rootDir>/packages/*/test/**/*.test.ts',
    '<rootDir>/examples/*/test/**/*.test.ts',
    '<rootDir>/test/**/*.test.ts',
  ],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  collectCoverageFrom: ['packages/*/src/**/*.ts', 'examples/*/src/**/*.ts', '!**/*.d.ts'],
  coverageReporters: ['text-summary', 'lcov'],
  coverageThreshold: { global: { lines: 80 } },
  testTimeout: 30000,
};

export default config;
