import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/** One importable entry of a workspace package: its specifier and its built declarations. */
export interface PackageEntry {
  specifier: string;
  types: string;
}

const ROOT = resolve('.');

/** Every entry of every workspace package's `exports` map (`./package.json` is not code). */
export function packageEntries(root = ROOT): PackageEntry[] {
  const entries: PackageEntry[] = [];
  for (const dir of readdirSync(join(root, 'packages')).sort()) {
    const manifest = JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) as {
      name: string;
      exports: Record<string, string | { types?: string }>;
    };
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (typeof target !== 'object' || target.types === undefined) continue;
      const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
      entries.push({ specifier, types: join(root, 'packages', dir, target.types) });
    }
  }
  return entries;
}

/** The sorted names (values and types) that each built `.d.ts` exports, by specifier. */
export function declaredNames(entries: readonly PackageEntry[]): Record<string, string[]> {
  const program = ts.createProgram(
    entries.map((e) => e.types),
    {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  );
  const checker = program.getTypeChecker();
  const names: Record<string, string[]> = {};
  for (const entry of entries) {
    const file = program.getSourceFile(entry.types);
    const symbol = file && checker.getSymbolAtLocation(file);
    if (!symbol)
      throw new Error(`${entry.specifier}: no declarations at ${entry.types} (npm run build first)`);
    names[entry.specifier] = checker
      .getExportsOfModule(symbol)
      .map((s) => s.name)
      .sort();
  }
  return names;
}
