import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatorVersion, THIRD_PARTY_VERSIONS } from '../src/versions.js';
import { REPO_ROOT } from './support/typecheck.js';

const pkg = (path: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, path, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

describe('versions', () => {
  it('is the version of the kit packages it generates for', () => {
    expect(generatorVersion()).toBe(pkg('packages/create-robot-mcp-server').version);
    expect(generatorVersion()).toBe(pkg('packages/core').version);
    expect(generatorVersion()).toBe(pkg('packages/server').version);
    expect(generatorVersion()).toBe(pkg('packages/cli').version);
  });

  it('gives generated projects the dependency ranges the kit is built with', () => {
    const server = pkg('packages/server').dependencies ?? {};
    for (const [name, range] of Object.entries(THIRD_PARTY_VERSIONS.dependencies)) {
      expect([name, server[name]]).toEqual([name, range]);
    }
    const root = pkg('.').devDependencies ?? {};
    for (const [name, range] of Object.entries(THIRD_PARTY_VERSIONS.devDependencies)) {
      expect([name, range.replace(/^\^/, '')]).toEqual([name, (root[name] ?? '').replace(/^\^/, '')]);
    }
  });
});
