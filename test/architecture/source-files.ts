import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The TypeScript sources below `dir` (no declaration files), for the architecture tests to read. */
export function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}
