import { mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The workspace root (this file is packages/create-robot-mcp-server/test/support/). */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * A fresh directory inside the workspace's node_modules/.cache, so a generated project resolves
 * the workspace's dependencies (typescript, @types, the MCP SDK) without an install.
 */
export function workspaceTempDir(prefix: string): string {
  const base = join(REPO_ROOT, 'node_modules', '.cache', 'robot-mcp-kit-tests');
  mkdirSync(base, { recursive: true });
  return mkdtempSync(join(base, prefix));
}

/**
 * Typechecks a generated project with its own tsconfig.json, the kit packages mapped to the
 * workspace sources. Returns the diagnostics as `file(line): message` lines (empty when clean).
 */
export function typecheckProject(dir: string): string[] {
  const config = ts.readConfigFile(join(dir, 'tsconfig.json'), (path) => readFileSync(path, 'utf8'));
  if (config.error) return [ts.flattenDiagnosticMessageText(config.error.messageText, '\n')];
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: true,
    paths: {
      '@robot-mcp-kit/core': [join(REPO_ROOT, 'packages/core/src/index.ts')],
      '@robot-mcp-kit/server': [join(REPO_ROOT, 'packages/server/src/index.ts')],
      '@robot-mcp-kit/server/testing': [join(REPO_ROOT, 'packages/server/src/testing/index.ts')],
      '@robot-mcp-kit/server/advanced': [join(REPO_ROOT, 'packages/server/src/advanced/index.ts')],
      '@robot-mcp-kit/ros': [join(REPO_ROOT, 'packages/ros/src/index.ts')],
      '@robot-mcp-kit/ros/testing': [join(REPO_ROOT, 'packages/ros/src/testing/index.ts')],
      // roslib 2.1's own typings do not resolve under NodeNext (an extensionless re-export)
      roslib: [join(REPO_ROOT, 'node_modules/roslib/dist/src/RosLib.d.ts')],
    },
  };
  const program = ts.createProgram(parsed.fileNames, options);
  // Only the project's own files are checked: the kit's sources are checked by the workspace's
  // typecheck, and only the project's diagnostics are reported. The checker still resolves every
  // kit type the project uses, so an API mismatch is still an error in the project's file.
  const own = program.getSourceFiles().filter((file) => file.fileName.startsWith(dir));
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...own.flatMap((file) => [
      ...program.getSyntacticDiagnostics(file),
      ...program.getSemanticDiagnostics(file),
    ]),
    ...program.getGlobalDiagnostics(),
  ];
  return diagnostics
    .filter((d) => !d.file || d.file.fileName.startsWith(dir))
    .map((d) => {
      const where = d.file
        ? `${relative(dir, d.file.fileName)}(${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1})`
        : 'tsconfig';
      return `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

/** Relative paths of every file under `dir`, sorted. */
export function listFiles(dir: string, prefix = ''): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) files.push(...listFiles(dir, path));
    else files.push(path);
  }
  return files.sort();
}
