import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { type ClassDeclaration, type Project, type SourceFile } from 'ts-morph';
import { CliError } from '../cli.error.js';

/** The capability server class an edit goes into. */
export interface ServerClassLocation {
  readonly sourceFile: SourceFile;
  readonly serverClass: ClassDeclaration;
  /** Path relative to the project, forward slashes, e.g. `src/my-nav.server.ts`. */
  readonly relativePath: string;
}

/** The nearest directory from `start` upwards that has a package.json. */
export function findProjectRoot(start: string): string {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) {
      throw new CliError(
        'CLI_NOT_A_PROJECT',
        resolve(start),
        'is not inside a project (no package.json found upwards); run the command in a project made by ' +
          'create-robot-mcp-server, or pass --project <dir>',
      );
    }
    dir = parent;
  }
}

/**
 * Finds the class decorated with `@CapabilityServer` among `src/**\/*.server.ts` (or in `explicit`).
 * @throws CliError when there is none, or more than one and no `--server` says which.
 */
export function locateServerClass(project: Project, root: string, explicit?: string): ServerClassLocation {
  const candidates = explicit !== undefined ? [resolve(root, explicit)] : listServerFiles(join(root, 'src'));
  if (explicit !== undefined && !existsSync(candidates[0] as string)) {
    throw new CliError(
      'CLI_SERVER_NOT_FOUND',
      '--server',
      `${explicit} does not exist; give the path of the *.server.ts file`,
    );
  }
  const found: ServerClassLocation[] = [];
  for (const path of candidates) {
    const sourceFile = project.addSourceFileAtPath(path);
    for (const serverClass of sourceFile.getClasses()) {
      if (serverClass.getDecorator('CapabilityServer')) {
        found.push({ sourceFile, serverClass, relativePath: toPosix(relative(root, path)) });
      }
    }
  }
  if (found.length === 0) {
    throw new CliError(
      'CLI_SERVER_NOT_FOUND',
      explicit ?? 'src/',
      'has no class decorated with @CapabilityServer in a *.server.ts file; run the command in a project made by ' +
        'create-robot-mcp-server, or pass --server <file>',
    );
  }
  if (found.length > 1) {
    const list = found.map((f) => `${f.relativePath} (${f.serverClass.getName() ?? 'anonymous'})`).join(', ');
    throw new CliError(
      'CLI_USAGE',
      '--server',
      `several capability servers found (${list}); say which with --server <file>`,
    );
  }
  return found[0] as ServerClassLocation;
}

/** `*.server.ts` files under `dir`, recursively, sorted. */
export function listServerFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') files.push(...listServerFiles(path));
    else if (entry.isFile() && entry.name.endsWith('.server.ts')) files.push(path);
  }
  return files.sort();
}

export function toPosix(path: string): string {
  return path.split('\\').join('/');
}

/** `./x.server.js`-style specifier of `target` (a .ts file) as imported from the file `from`. */
export function importSpecifier(from: string, target: string): string {
  let spec = toPosix(relative(dirname(from), target)).replace(/\.ts$/, '.js');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec;
}
