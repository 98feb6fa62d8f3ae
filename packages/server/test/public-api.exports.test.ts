import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';

// Process-level (the pinned names of every entry: test/architecture/public-api.exports.test.ts):
// resolves the built package (`npm run build` first) through its `exports` map, as
// an installed project does, in a child `node` started at the repository root.
const run = promisify(execFile);
const ROOT = resolve('.');

/** The sorted runtime export names of `specifier` as a child node process imports it. */
async function exportsOf(specifier: string): Promise<string[]> {
  const script = `import(${JSON.stringify(specifier)}).then((m) => console.log(JSON.stringify(Object.keys(m).sort())))`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], {
    cwd: ROOT,
    timeout: 30_000,
  });
  return JSON.parse(stdout) as string[];
}

describe('the built @robot-mcp-kit/server, resolved through its exports map', () => {
  it('/advanced resolves to the extension points', async () => {
    const names = await exportsOf('@robot-mcp-kit/server/advanced');
    expect(names).toEqual(expect.arrayContaining(['BoundedEventStore', 'listenHttp', 'TaskStarter']));
  }, 60_000);

  it('has no /dto entry: authors import decorators from class-validator and class-transformer', async () => {
    await expect(exportsOf('@robot-mcp-kit/server/dto')).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
    await expect(exportsOf('@robot-mcp-kit/core/dto')).rejects.toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
  }, 60_000);

  it('a deep import of a file outside the exports map is refused', async () => {
    await expect(exportsOf('@robot-mcp-kit/server/dist/bootstrap/bootstrap.js')).rejects.toThrow(
      /ERR_PACKAGE_PATH_NOT_EXPORTED/,
    );
  }, 60_000);

  it('every subpath names its types, and the .d.ts files carry no @internal member', () => {
    const pkg = JSON.parse(readFileSync(resolve('packages/server/package.json'), 'utf8')) as {
      exports: Record<string, { types?: string } | string>;
    };
    for (const subpath of ['.', './testing', './advanced']) {
      const entry = pkg.exports[subpath];
      expect(typeof entry === 'object' && entry.types).toMatch(/^\.\/dist\/.+\.d\.ts$/);
    }
    // A task context emits through the internal TaskLifecycle: none of it is on TaskManager's declarations.
    const taskManager = readFileSync(resolve('packages/core/dist/tasks/task-manager.d.ts'), 'utf8');
    expect(taskManager).toContain('class TaskManager');
    expect(taskManager).not.toMatch(/\bemitEvent\b|\bignoreIfFinished\b/);
  });

  it("an author's file importing only the main entry typechecks against the built .d.ts", () => {
    // The built-in features' options (readOnly, nativeTasks) reach BootstrapOptions by declaration
    // merging: the main entry must pull those declarations in by itself.
    const base = join(ROOT, 'node_modules', '.cache', 'robot-mcp-kit-tests');
    mkdirSync(base, { recursive: true });
    const dir = mkdtempSync(join(base, 'public-api-'));
    try {
      const file = join(dir, 'author.ts');
      writeFileSync(
        file,
        [
          "import { bootstrap, CapabilityServer, LongRunningTool, TaskError, type TaskContext } from '@robot-mcp-kit/server';",
          "import { InMemoryEventTransport, silentLogger } from '@robot-mcp-kit/server/testing';",
          "@CapabilityServer({ name: 'probe', version: '1' })",
          'export class ProbeServer {',
          "  @LongRunningTool({ description: 'fails' })",
          '  async fail(_args: object, ctx: TaskContext): Promise<never> {',
          "    throw new TaskError('NOPE', ctx.taskId);",
          '  }',
          '}',
          'export const app = bootstrap(ProbeServer, {',
          '  eventTransport: new InMemoryEventTransport(),',
          '  logger: silentLogger,',
          '  readOnly: true,',
          '  nativeTasks: {},',
          '});',
          '',
        ].join('\n'),
      );
      const program = ts.createProgram([file], {
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        strict: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        skipLibCheck: true,
        noEmit: true,
        types: ['node'],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      expect(problems).toEqual([]);
      // and it resolved the built declarations, not the sources
      const server = program
        .getSourceFiles()
        .find((f) => /server[\\/]dist[\\/]index\.d\.ts$/.test(f.fileName));
      expect(server).toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
