import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

// No file of the kit imports a private path of a dependency: for a bare specifier with a subpath
// (`pkg/sub/path`), the subpath must be an entry of that package's `exports` map. A package without
// an exports map offers its main entry only (no path is allow-listed: class-transformer's metadata
// storage, which class-validator-jsonschema's README reaches at `class-transformer/cjs/storage`, is
// read through class-transformer's public API instead — packages/server/src/schema/transformer-shape.probe.ts).
const ROOT = resolve('.');

/** The source folders scanned: what authors run (packages, templates, examples) and the bench. */
function sourceRoots(): string[] {
  const children = (dir: string) => readdirSync(join(ROOT, dir)).map((name) => join(dir, name));
  return [
    ...children('packages').flatMap((pkg) => [join(pkg, 'src'), join(pkg, 'templates')]),
    ...children('examples').map((example) => join(example, 'src')),
    'bench',
  ].filter((dir) => existsSync(join(ROOT, dir)));
}

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(join(ROOT, path)).isDirectory()) files.push(...sourceFiles(path));
    else if (/\.(ts|mts|cts|mjs|js|tpl)$/.test(name) && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

/**
 * Every module specifier in `text`: import/export-from, dynamic `import()`, `require()` (TypeScript's
 * own pre-processor), and the static head of a template-literal `import()`/`require()` (`pkg/sub/${x}`).
 */
export function specifiersOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  const found = info.importedFiles.map((file) => file.fileName);
  for (const match of text.matchAll(/\b(?:require|import)\s*\(\s*`([^`$]*)\$\{/g)) found.push(match[1]!);
  return found;
}

/** The package name and subpath of a bare specifier; undefined for relative paths and built-ins. */
export function splitSpecifier(specifier: string): { name: string; subpath: string } | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('/') || isBuiltin(specifier)) return undefined;
  const parts = specifier.split('/');
  const size = specifier.startsWith('@') ? 2 : 1;
  const rest = parts.slice(size).join('/');
  return { name: parts.slice(0, size).join('/'), subpath: rest ? `./${rest}` : '.' };
}

/** The package.json of `name` as Node finds it from `fromDir` (up the node_modules folders). */
function manifestOf(name: string, fromDir: string): { exports?: unknown } | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const path = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as { exports?: unknown };
    if (dirname(dir) === dir) return undefined;
  }
}

/** Whether `subpath` is an entry of an `exports` map (exact key, or a `*` pattern not mapped to null). */
export function isExported(exportsMap: unknown, subpath: string): boolean {
  if (typeof exportsMap === 'string' || Array.isArray(exportsMap)) return subpath === '.';
  if (exportsMap === null || typeof exportsMap !== 'object') return false;
  const entries = Object.entries(exportsMap as Record<string, unknown>);
  if (!entries.some(([key]) => key.startsWith('.'))) return subpath === '.'; // conditions only
  const exact = entries.find(([key]) => key === subpath);
  if (exact) return exact[1] !== null;
  const patterns = entries.filter(([key]) => key.includes('*'));
  const matching = patterns.filter(([key]) => {
    const [head, tail] = key.split('*') as [string, string];
    return subpath.startsWith(head) && subpath.endsWith(tail) && subpath.length >= head.length + tail.length;
  });
  // Node picks the most specific pattern (longest head); a null target excludes the path
  const best = matching.sort(([a], [b]) => b.indexOf('*') - a.indexOf('*'))[0];
  return best !== undefined && best[1] !== null;
}

/** Why `specifier` (imported by `file`) is a private path, or undefined when it is an entry. */
export function privatePathProblem(specifier: string, file: string): string | undefined {
  const split = splitSpecifier(specifier);
  if (!split || split.subpath === '.') return undefined;
  const manifest = manifestOf(split.name, dirname(join(ROOT, file)));
  if (!manifest) return `${file}: ${specifier} — ${split.name} is not installed where ${file} resolves it`;
  if (manifest.exports !== undefined) {
    return isExported(manifest.exports, split.subpath)
      ? undefined
      : `${file}: ${specifier} — ${split.subpath} is not in ${split.name}'s exports map`;
  }
  return `${file}: ${specifier} — ${split.name} has no exports map: import its main entry only`;
}

describe('imports of dependencies', () => {
  it('no package, template, example or bench file imports a private path of a dependency', () => {
    const problems: string[] = [];
    let scanned = 0;
    for (const file of sourceRoots().flatMap(sourceFiles)) {
      scanned += 1;
      for (const specifier of specifiersOf(readFileSync(join(ROOT, file), 'utf8'))) {
        const problem = privatePathProblem(specifier, relative(ROOT, join(ROOT, file)));
        if (problem) problems.push(problem);
      }
    }
    expect(scanned).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('finds the specifiers of every import form, and judges them by the exports map', () => {
    const text = [
      "import { a } from 'class-validator/cjs/decorator/common/IsIn';",
      "export * from 'pkg-b/sub';",
      "const c = await import('@scope/c/deep/file.js');",
      "const d = require('class-transformer/cjs/storage');",
      'const e = require(`class-validator/cjs/${path}.js`);',
      "import { f } from './relative.js';",
      "import { readFileSync } from 'node:fs';",
    ].join('\n');
    expect(specifiersOf(text).sort()).toEqual(
      [
        './relative.js',
        '@scope/c/deep/file.js',
        'class-transformer/cjs/storage',
        'class-validator/cjs/',
        'class-validator/cjs/decorator/common/IsIn',
        'node:fs',
        'pkg-b/sub',
      ].sort(),
    );
    const sdkLike = { '.': './index.js', './*': './dist/*', './internal/*': null };
    expect(isExported(sdkLike, './types.js')).toBe(true);
    expect(isExported(sdkLike, './internal/x.js')).toBe(false);
    expect(isExported({ '.': './a.js', './b': './b.js' }, './c')).toBe(false);
    expect(isExported({ import: './a.js' }, './a.js')).toBe(false);
    // the loader the kit had: class-validator has no exports map, and this path is documented nowhere
    expect(privatePathProblem('class-validator/cjs/decorator/common/IsIn', 'packages/core/src/x.ts')).toMatch(
      /class-validator has no exports map/,
    );
    expect(privatePathProblem('@robot-mcp-kit/server/dist/bootstrap/bootstrap.js', 'bench/x.ts')).toMatch(
      /not in @robot-mcp-kit\/server's exports map/,
    );
    // the storage the schema builder read until issue 29: private too, with no allow-list
    expect(privatePathProblem('class-transformer/cjs/storage', 'packages/server/src/x.ts')).toMatch(
      /class-transformer has no exports map/,
    );
    expect(
      privatePathProblem('@modelcontextprotocol/sdk/types.js', 'packages/server/src/x.ts'),
    ).toBeUndefined();
  });
});
