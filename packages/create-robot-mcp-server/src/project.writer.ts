import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { GeneratorError } from './generator.error.js';
import { type RenderedFile } from './template.renderer.js';

/** Entries a fresh repository may already hold; they do not make a directory "not empty". */
const IGNORED_ENTRIES = new Set(['.git']);

/**
 * Checks that `directory` can receive a new project: it does not exist, or is an empty directory
 * (`.git` aside), or `force` is set.
 * @throws GeneratorError saying how to proceed.
 */
export function assertTargetUsable(directory: string, force: boolean): void {
  if (!existsSync(directory)) return;
  if (!statSync(directory).isDirectory()) {
    throw new GeneratorError(
      'GENERATOR_TARGET_NOT_EMPTY',
      '<directory>',
      `${directory} is a file, not a directory; choose another directory name`,
    );
  }
  const entries = readdirSync(directory).filter((entry) => !IGNORED_ENTRIES.has(entry));
  if (entries.length > 0 && !force) {
    const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', ...' : '');
    throw new GeneratorError(
      'GENERATOR_TARGET_NOT_EMPTY',
      '<directory>',
      `${directory} is not empty (${shown}); choose a new directory, or pass --force to write into it ` +
        '(files with the same names are replaced)',
    );
  }
}

/** Writes the files under `directory`, creating folders as needed. Returns the paths written. */
export function writeProject(directory: string, files: readonly RenderedFile[]): string[] {
  mkdirSync(directory, { recursive: true });
  for (const file of files) {
    const target = join(directory, ...file.path.split('/'));
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  return files.map((file) => file.path);
}
