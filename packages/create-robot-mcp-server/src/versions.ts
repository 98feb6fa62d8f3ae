import { readFileSync } from 'node:fs';

/**
 * Versions of the third-party packages a generated project uses. They match what the kit itself is
 * built and tested with (a unit test compares them with the workspace's package.json files).
 */
export const THIRD_PARTY_VERSIONS = Object.freeze({
  dependencies: {
    '@modelcontextprotocol/sdk': '^1.32.2',
    // peers of the kit: the project's own copies, which its DTO decorators and the kit share
    'class-transformer': '^0.5.1',
    'class-validator': '^0.15.1',
    'reflect-metadata': '^0.2.2',
  },
  devDependencies: {
    '@types/jest': '^30.0.0',
    '@types/node': '^20.19.43',
    jest: '^30.5.2',
    'ts-jest': '^29.4.15',
    typescript: '6.0.3',
  },
});

/** The kit packages a generated project depends on, and the file names `npm pack` gives them. */
export const KIT_PACKAGES = Object.freeze({
  core: { name: '@robot-mcp-kit/core', tarball: 'robot-mcp-kit-core' },
  server: { name: '@robot-mcp-kit/server', tarball: 'robot-mcp-kit-server' },
  cli: { name: '@robot-mcp-kit/cli', tarball: 'robot-mcp-kit-cli' },
  ros: { name: '@robot-mcp-kit/ros', tarball: 'robot-mcp-kit-ros' },
});

/** This generator's version, which is the kit version it generates for. */
export function generatorVersion(): string {
  const raw = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(raw) as { version: string }).version;
}
