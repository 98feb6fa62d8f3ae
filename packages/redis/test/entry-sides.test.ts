import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

// The package is split by side (docs/architecture.md, Package layering): the robot side
// (/server: task store, outbox) imports nothing of the receiver, and the app side (/receiver:
// dedupe, seq state) loads no task-store or outbox module. Checked on the import graph of the
// sources, type-only imports included (a .d.ts importing the receiver would need it installed).
const SRC = resolve('packages/redis/src');

/** Every module reachable from `entry` by relative imports, and every bare specifier they import. */
function importGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (fileName.startsWith('.')) visit(join(dirname(file), fileName.replace(/\.js$/, '.ts')));
      else packages.add(fileName);
    }
  };
  visit(join(SRC, entry));
  return { files: [...files].map((f) => f.slice(SRC.length + 1)).sort(), packages: [...packages].sort() };
}

describe('@robot-mcp-kit/redis entries by side', () => {
  it('/server (robot side) imports nothing of @robot-mcp-kit/receiver', () => {
    const server = importGraph('server/index.ts');
    expect(server.files).toEqual(expect.arrayContaining(['redis-task.store.ts', 'redis-event.outbox.ts']));
    // of the kit, only core (its ports and rules)
    expect(
      server.packages.filter((p) => /^@robot-mcp-kit\//.test(p) && !/^@robot-mcp-kit\/core(\/|$)/.test(p)),
    ).toEqual([]);
    expect(server.packages).toContain('@robot-mcp-kit/core/store');
    expect(server.files.filter((f) => /dedupe|seq-state/.test(f))).toEqual([]);
  });

  it('/receiver (app side) loads no task-store, lease or outbox module', () => {
    const receiver = importGraph('receiver/index.ts');
    expect(receiver.packages).toContain('@robot-mcp-kit/receiver');
    expect(receiver.files.filter((f) => /task|lease|outbox|store-contents/.test(f))).toEqual([]);
  });
});
