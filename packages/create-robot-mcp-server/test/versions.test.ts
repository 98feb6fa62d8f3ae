import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatorVersion, THIRD_PARTY_VERSIONS } from '../src/versions.js';
import { REPO_ROOT } from './support/typecheck.js';

const pkg = (path: string) =>
  JSON.parse(readFileSync(join(REPO_ROOT, path, 'package.json'), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    peerDependencies?: Record<string, string>;
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
    const peers = pkg('packages/server').peerDependencies ?? {};
    const root = pkg('.').devDependencies ?? {};
    for (const [name, range] of Object.entries(THIRD_PARTY_VERSIONS.dependencies)) {
      // a peer of the kit (class-validator, class-transformer) is the project's own dependency, in
      // the range the workspace builds and tests with; any other, the server's own range
      expect([name, peers[name] ? root[name] : server[name]]).toEqual([name, range]);
    }
    // every library peer of the kit is a dependency of a generated project
    const libraryPeers = Object.keys(peers).filter((name) => !name.startsWith('@robot-mcp-kit/'));
    expect(libraryPeers).toEqual(expect.arrayContaining(['class-transformer', 'class-validator']));
    for (const name of libraryPeers) expect(THIRD_PARTY_VERSIONS.dependencies).toHaveProperty([name]);
    for (const [name, range] of Object.entries(THIRD_PARTY_VERSIONS.devDependencies)) {
      expect([name, range.replace(/^\^/, '')]).toEqual([name, (root[name] ?? '').replace(/^\^/, '')]);
    }
  });
});
