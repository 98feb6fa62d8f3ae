import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from './source-files.js';
import ts from 'typescript';

// The server's layers (docs/architecture.md): `runtime/` is the app's machinery and the ports the
// features plug into (`Feature`, `FeatureContext`, `AppExtension`); `features/` build on it, never the
// other way round. What both need (the task views of the two MCP legs) lives outside `features/`,
// and the composition root that picks the built-in features is `bootstrap/`.
const SERVER_SRC = resolve('packages/server/src');

/** Relative module specifiers of `text` (static, type-only, re-exports and dynamic `import()`). */
function relativeSpecifiers(text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((file) => file.fileName)
    .filter((specifier) => specifier.startsWith('.'));
}

/** `from/x.ts` imports of a folder below `to`, as "file → specifier" lines. */
export function importsInto(fromDir: string, toDir: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(fromDir)) {
    for (const specifier of relativeSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolve(dirname(file), specifier);
      if (target === toDir || target.startsWith(toDir + sep))
        found.push(`${relative(SERVER_SRC, file)} → ${specifier}`);
    }
  }
  return found;
}

describe('server layers', () => {
  it.each(['runtime', 'modern', 'store'])('no file in %s/ imports features/', (folder) => {
    expect(importsInto(join(SERVER_SRC, folder), join(SERVER_SRC, 'features'))).toEqual([]);
  });

  it('sees an import of features/ (the check can fail)', () => {
    // bootstrap/ is the composition root: it does import the built-in features.
    expect(importsInto(join(SERVER_SRC, 'bootstrap'), join(SERVER_SRC, 'features'))).toContainEqual(
      expect.stringContaining('../features/builtin-features.js'),
    );
  });
});
