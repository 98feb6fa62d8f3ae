// Jest runs the TypeScript tests as ES modules (`node --experimental-vm-modules`, see `npm test`).
// ts-jest only transpiles; `npm test` typechecks first with `tsc --noEmit`.

/** @type {import('jest').Config} */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  setupFiles: ['reflect-metadata'],
  moduleNameMapper: {
    // Source imports end in .js (NodeNext); the tests load the .ts files.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 20000,
};
