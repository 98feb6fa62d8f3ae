import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { Command, CommanderError } from 'commander';
import { addTool, type AddToolResult } from './add-tool/add-tool.command.js';
import { addTrigger } from './add-trigger/add-trigger.command.js';
import { CliError } from './cli.error.js';
import { formatReport, runDoctor } from './doctor/doctor.command.js';
import { findProjectRoot } from './project/project.locator.js';

/** The process around the CLI. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** `process.versions.node` (injected so tests can pretend another Node). */
  nodeVersion: string;
  /**
   * Asks a yes/no question on a terminal (absent elsewhere: then the defaults apply). `add tool`
   * asks whether the tool acts on the world when neither --actuates nor --no-actuates is given.
   */
  confirm?: (message: string, defaultAnswer: boolean) => Promise<boolean>;
}

export const CLI_NAME = 'robot-mcp-kit';

/** This CLI's version (its package.json). */
export function cliVersion(): string {
  return (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
}

/**
 * `robot-mcp-kit add tool <name> [--long-running]`, `add trigger <type>`, `doctor`. Returns the exit
 * code: 0 done, 1 a problem (printed as one line with its fix; nothing was changed).
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = new Command(CLI_NAME)
    .description('Grow and check a robot-mcp-kit capability server project.')
    .version(cliVersion(), '-V, --version')
    .option('-p, --project <dir>', 'the project directory (default: the nearest package.json upwards)')
    .showHelpAfterError(`(run ${CLI_NAME} --help for usage)`)
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) })
    .exitOverride();
  const context: CommandContext = {
    io,
    root: () => findProjectRoot(program.opts<{ project?: string }>().project ?? io.cwd),
    show: (path) => relative(io.cwd, path) || '.',
  };

  const add = program.command('add').description('add a tool or a trigger to the project');
  registerAddTool(add, context);
  registerAddTrigger(add, context);
  registerDoctor(program, context, (exitCode) => {
    code = exitCode;
  });

  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    if (err instanceof CliError) {
      io.stderr(`${CLI_NAME}: ${err.message}\n`);
      return 1;
    }
    throw err;
  }
}

/** What every command's action needs from the program around it. */
interface CommandContext {
  readonly io: CliIo;
  /** The project root: --project, or the nearest package.json upwards from the working directory. */
  root(): string;
  /** A path as shown to the user: relative to the working directory. */
  show(path: string): string;
}

/** `add tool <name> [--long-running] [--actuates | --no-actuates] [--server <file>]`. */
function registerAddTool(add: Command, { io, root, show }: CommandContext): void {
  add
    .command('tool')
    .description('add a tool: a DTO and a decorated method in the server class, and a test')
    .argument('<name>', 'tool name, snake_case (e.g. scan_room)')
    .option(
      '-l, --long-running',
      'a @LongRunningTool that runs as a task with progress (default: a plain @Tool)',
      false,
    )
    .option(
      '-a, --actuates',
      'it acts on the world (moves, grips, switches): actuates: true, hidden by --read-only ' +
        '(default for --long-running)',
    )
    .option(
      '--no-actuates',
      'it only reads or computes: annotated readOnlyHint: true (default for a plain tool)',
    )
    .option('-s, --server <file>', 'the *.server.ts file, when the project has several')
    .action(async (name: string, opts: { longRunning: boolean; actuates?: boolean; server?: string }) => {
      const dir = root();
      const actuates =
        opts.actuates ??
        (await io.confirm?.(
          `Does ${name} act on the world (move, grip, switch)? --read-only hides such tools`,
          opts.longRunning,
        ));
      const result = addTool({
        root: dir,
        name,
        longRunning: opts.longRunning,
        actuates,
        server: opts.server,
      });
      io.stdout(addToolReport(result, opts.longRunning, actuates === undefined, show(dir)));
    });
}

/** What `add tool` prints; `guessed` when no flag or answer said whether the tool acts. */
function addToolReport(result: AddToolResult, longRunning: boolean, guessed: boolean, dir: string): string {
  const acting = result.actuates
    ? 'acts on the world (actuates: true; --read-only hides it)'
    : 'only reads (readOnlyHint: true; --read-only offers it)';
  const other = result.actuates ? '--no-actuates' : '--actuates';
  return (
    `Added ${longRunning ? '@LongRunningTool' : '@Tool'} ${result.tool} to ${result.className} in ${dir}, ` +
    `marked as a tool that ${acting}${guessed ? ` (say ${other} if not)` : ''}:\n` +
    result.modified.map((file) => `  modified ${file}\n`).join('') +
    result.created.map((file) => `  created  ${file}\n`).join('') +
    'Next: write the body, then npm test.\n'
  );
}

/** `add trigger <type>`. */
function registerAddTrigger(add: Command, { io, root, show }: CommandContext): void {
  add
    .command('trigger')
    .description('add a trigger plugin (validate/evaluate) under src/triggers and register it')
    .argument('<type>', 'trigger type, snake_case (e.g. battery_below)')
    .action((type: string) => {
      const dir = root();
      const result = addTrigger({ root: dir, type });
      io.stdout(
        `Added trigger ${result.type} (${result.variable}) in ${show(dir)}:\n` +
          result.created.map((file) => `  created  ${file}\n`).join('') +
          result.modified.map((file) => `  modified ${file} (registered)\n`).join('') +
          'Next: adapt validate/evaluate to your progress fields, then npm test.\n',
      );
    });
}

/** `doctor [--timeout <ms>]`; reports the exit code (1 when a check failed) through `setCode`. */
function registerDoctor(
  program: Command,
  { io, root }: CommandContext,
  setCode: (code: number) => void,
): void {
  program
    .command('doctor')
    .description('check Node.js, the settings (environment and .env) and that the callback URL answers')
    .option('-t, --timeout <ms>', 'how long to wait for the callback URL', '3000')
    .action(async (opts: { timeout: string }) => {
      const timeoutMs = Number(opts.timeout);
      if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
        throw new CliError(
          'CLI_USAGE',
          '--timeout',
          `"${opts.timeout}" is not a positive number of milliseconds; e.g. --timeout 3000`,
        );
      }
      const report = await runDoctor({ root: root(), env: io.env, nodeVersion: io.nodeVersion, timeoutMs });
      io.stdout(formatReport(report));
      setCode(report.failed === 0 ? 0 : 1);
    });
}
