import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// The CLI edits projects made by the generator: its tests start from a real generated project.
import { generateProject } from '../../../create-robot-mcp-server/src/index.js';
import {
  typecheckProject,
  workspaceTempDir,
} from '../../../create-robot-mcp-server/test/support/typecheck.js';

export { typecheckProject };

/** A freshly generated project `my-nav` (patrol + get_status) in a temp directory. */
export function generatedProject(options: { inWorkspace?: boolean } = {}): { root: string; cleanup(): void } {
  const base = options.inWorkspace ? workspaceTempDir('cli-') : mkdtempSync(join(tmpdir(), 'cli-'));
  const root = join(base, 'my-nav');
  generateProject(
    {
      directory: root,
      name: 'my-nav',
      description: 'Drives the base',
      transport: 'stdio',
      longRunningTool: 'patrol',
      plainTool: 'get_status',
      firstToolLongRunning: true,
      firstToolActuates: true,
      force: false,
    },
    '0.1.0',
  );
  return { root, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export function read(root: string, path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** A snapshot of the given files, to prove a refused command changed nothing. */
export function snapshot(root: string, paths: readonly string[]): Record<string, string> {
  return Object.fromEntries(paths.map((path) => [path, read(root, path)]));
}

export function copyProject(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
}
