import { Command, CommanderError, Option } from 'commander';
import { TRANSPORTS } from './validation.js';

/** The command line as given; unset flags stay undefined (prompts or defaults fill them). */
export interface CreateArgs {
  /** Target directory (the first argument). */
  directory?: string;
  name?: string;
  description?: string;
  transport?: string;
  /** The first tool's name. */
  tool?: string;
  /** Whether the first tool is a `@LongRunningTool` (`--long-running` / `--no-long-running`). */
  longRunning?: boolean;
  /** Whether the first tool acts on the world (`--actuates` / `--no-actuates`). */
  actuates?: boolean;
  /** The project template: `basic` (default) or `ros` (`--template`). */
  template?: string;
  /** A directory holding packed kit tarballs (`npm pack`), used instead of the registry versions. */
  kit?: string;
  force: boolean;
  yes: boolean;
}

/** Where the CLI writes. */
export interface OutputSink {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Either arguments to run with, or an exit code (after `--help`, `--version` or a usage error). */
export type ParseOutcome = { kind: 'run'; args: CreateArgs } | { kind: 'exit'; code: number };

export const COMMAND_NAME = 'create-robot-mcp-server';

/** Builds the commander program (exported for the help text in docs and tests). */
export function buildCreateProgram(version: string, out: OutputSink): Command {
  return new Command(COMMAND_NAME)
    .description('Scaffold a robot capability MCP server on robot-mcp-kit.')
    .version(version, '-V, --version')
    .argument('[directory]', 'where to create the project (default: the server name)')
    .option(
      '-n, --name <name>',
      'server name: a-z, 0-9 and "-", 1-64 characters (default: the directory name)',
    )
    .option('-d, --description <text>', 'one line saying what the server does')
    .addOption(
      new Option('-t, --transport <transport>', 'default MCP transport of `npm start`').choices([
        ...TRANSPORTS,
      ]),
    )
    .option(
      '--tool <name>',
      'name of the first tool, snake_case (default: patrol, or get_status with --no-long-running)',
    )
    .option('--long-running', 'the first tool is a @LongRunningTool that runs as a task (default)')
    .option('--no-long-running', 'the first tool is a plain @Tool that answers at once')
    .option(
      '--actuates',
      'the first tool acts on the world (moves, grips, switches): actuates: true, hidden by --read-only ' +
        '(default for a long-running first tool)',
    )
    .option('--no-actuates', 'the first tool only reads or computes: annotated readOnlyHint: true')
    .addOption(
      new Option(
        '--template <template>',
        'basic: a simulated robot to fill in (default); ros: a ROS 2 robot through rosbridge (@robot-mcp-kit/ros)',
      ).choices(['basic', 'ros']),
    )
    .option('--kit <dir>', 'use the kit tarballs packed into <dir> (npm pack) instead of the registry')
    .option(
      '-f, --force',
      'write into a directory that is not empty, replacing files with the same names',
      false,
    )
    .option('-y, --yes', 'do not ask: take defaults for everything not given as a flag', false)
    .helpOption('-h, --help', 'show this help')
    .showHelpAfterError(`(run ${COMMAND_NAME} --help for usage)`)
    .configureOutput({ writeOut: (text) => out.stdout(text), writeErr: (text) => out.stderr(text) })
    .exitOverride();
}

/** Parses `argv` (without `node` and the script). Never exits the process. */
export function parseCreateArgs(argv: readonly string[], version: string, out: OutputSink): ParseOutcome {
  const program = buildCreateProgram(version, out);
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return { kind: 'exit', code: err.exitCode };
    throw err;
  }
  const opts = program.opts<Omit<CreateArgs, 'directory'>>();
  const [directory] = program.processedArgs as [string | undefined];
  return {
    kind: 'run',
    args: {
      directory,
      name: opts.name,
      description: opts.description,
      transport: opts.transport,
      tool: opts.tool,
      longRunning: opts.longRunning,
      actuates: opts.actuates,
      template: opts.template,
      kit: opts.kit,
      force: opts.force,
      yes: opts.yes,
    },
  };
}
