import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import { CORE_MAIN_MAX_NAMES, PUBLIC_API } from './fixtures/public-api.names.js';
import { declaredNames, packageEntries } from './public-api.entries.js';

// Process-level: every entry of every workspace package, resolved through its `exports` map from
// the built packages (`npm run build` first), as an installed project resolves it.
const run = promisify(execFile);
const entries = packageEntries();

/** The sorted runtime names of each specifier, as one child node process imports them. */
async function runtimeNames(specifiers: readonly string[]): Promise<Record<string, string[]>> {
  const script = [
    `const specifiers = ${JSON.stringify(specifiers)};`,
    'const names = {};',
    'for (const s of specifiers) names[s] = Object.keys(await import(s)).sort();',
    'console.log(JSON.stringify(names));',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: process.cwd(),
    timeout: 90_000,
    maxBuffer: 16 * 1024 * 1024,
  });
  return JSON.parse(stdout) as Record<string, string[]>;
}

describe('the public API of every package entry, as built', () => {
  it('pins exactly the entries of the exports maps', () => {
    expect(entries.map((e) => e.specifier).sort()).toEqual(Object.keys(PUBLIC_API).sort());
  });

  it('each entry exports exactly its pinned runtime values', async () => {
    const actual = await runtimeNames(entries.map((e) => e.specifier));
    for (const { specifier } of entries) {
      expect({ specifier, values: actual[specifier] }).toEqual({
        specifier,
        values: [...PUBLIC_API[specifier]!.values].sort(),
      });
    }
  }, 120_000);

  it("each entry's declarations export exactly its pinned values and types", () => {
    const declared = declaredNames(entries);
    for (const { specifier } of entries) {
      const pinned = PUBLIC_API[specifier]!;
      expect({ specifier, names: declared[specifier] }).toEqual({
        specifier,
        names: [...pinned.values, ...pinned.types].sort(),
      });
    }
  }, 120_000);

  it("core's main entry is the contract: at most 60 names, no test double, port or internal", () => {
    const core = PUBLIC_API['@robot-mcp-kit/core']!;
    expect(core.values.length + core.types.length).toBeLessThanOrEqual(CORE_MAIN_MAX_NAMES);
    const all = [...core.values, ...core.types];
    for (const moved of [
      'ManualClock',
      'MemoryLogger',
      'InMemoryEventTransport',
      'TaskStore',
      'EventOutbox',
    ]) {
      expect(all).not.toContain(moved);
    }
    for (const internal of ['ManagedTaskControl', 'BrokerEventTransportLoader', 'jsonPrefix']) {
      expect(Object.values(PUBLIC_API).flatMap((e) => [...e.values, ...e.types])).not.toContain(internal);
    }
  });
});
