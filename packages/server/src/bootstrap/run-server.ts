import { parseArgs } from 'node:util';
import { ConfigError, RobotMcpKitError } from '@robot-mcp-kit/core';
import { parseInteger } from '../features/feature-config.js';
import { parseToolPatterns } from '../rules/tool-pattern.rules.js';
import { bootstrap, type BootstrapOptions, type CapabilityServerClass } from './bootstrap.js';
import { type ListenInfo, type RobotMcpApp } from '../runtime/robot-mcp-app.js';
import { checkLogLevel } from '../runtime/server-config.js';

/** Options of {@link runServer}. */
export interface RunServerOptions<T extends object> extends BootstrapOptions<T> {
  /** Called instead of `process.exit` (tests). */
  exit?: (code: number) => void;
  /** Command-line arguments to read flags from (default `process.argv.slice(2)`). */
  argv?: readonly string[];
  /**
   * Under stdio, how long running tasks may go on after stdin closed (the client quit) before the
   * server cancels what is left and exits, in seconds: 0 (the default) cancels them at once, so an
   * agent stops the robot by quitting. Variable `RMK_STDIO_DRAIN_S` (0 to 3600).
   */
  stdioDrainS?: number;
}

/** The most `stdioDrainS` / `RMK_STDIO_DRAIN_S` may say, in seconds. */
export const MAX_STDIO_DRAIN_S = 3600;

/**
 * Reads `stdioDrainS` (wins) or `RMK_STDIO_DRAIN_S`: a whole number of seconds from 0 to 3600,
 * default 0.
 * @throws ConfigError naming the option or variable and the range
 */
export function resolveStdioDrainS(env: NodeJS.ProcessEnv, option?: number): number {
  return parseInteger(
    { option: 'stdioDrainS', value: option, variable: 'RMK_STDIO_DRAIN_S', raw: env.RMK_STDIO_DRAIN_S },
    { min: 0, max: MAX_STDIO_DRAIN_S, fallback: 0, unit: 'seconds' },
  );
}

/** What the command line of a server said. */
export interface ServerArgs {
  /** `--read-only`: offer only the tools that do not act. */
  readOnly?: boolean;
  /** `--allow-tools <patterns>` (or `--allow-tools=<patterns>`), comma-separated globs. */
  allowTools?: string[];
  /** Arguments that are not flags of the kit (left for the server's own use). */
  rest: string[];
}

/**
 * Parses the kit's command-line flags: `--read-only` and `--allow-tools <patterns>` (repeatable;
 * `--allow-tools=<patterns>` works too). A flag overrides its variable (`RMK_READ_ONLY`,
 * `RMK_ALLOW_TOOLS`). Other arguments are returned in `rest`; after `--` nothing is read as a flag.
 * Built on `util.parseArgs`.
 * @throws ConfigError naming the flag when its value is missing or not valid
 */
export function parseServerArgs(argv: readonly string[]): ServerArgs {
  const { tokens } = parseArgs({
    args: [...argv],
    strict: false,
    allowPositionals: true,
    tokens: true,
    options: { 'read-only': { type: 'boolean' }, 'allow-tools': { type: 'string', multiple: true } },
  });
  const parsed: ServerArgs = { rest: [] };
  const consumed = new Set<number>();
  for (const token of tokens) {
    if (token.kind !== 'option' || (token.name !== 'read-only' && token.name !== 'allow-tools')) continue;
    consumed.add(token.index);
    if (token.name === 'read-only') {
      if (token.value !== undefined) {
        throw new ConfigError('--read-only', 'takes no value; write --read-only alone');
      }
      parsed.readOnly = true;
      continue;
    }
    if (!token.inlineValue && token.value !== undefined) consumed.add(token.index + 1);
    const value = token.value;
    if (value === undefined || value.trim() === '' || value.startsWith('--')) {
      throw new ConfigError(
        '--allow-tools',
        'needs a comma-separated list of tool names or globs, e.g. --allow-tools "get_*,navigate_to"',
      );
    }
    const patterns = parseToolPatterns('--allow-tools', value).map((p) => p.source);
    parsed.allowTools = [...(parsed.allowTools ?? []), ...patterns];
  }
  parsed.rest = argv.filter((_arg, index) => !consumed.has(index));
  return parsed;
}

/**
 * The `main.ts` one-liner: bootstraps the class, listens on the configured transport and installs
 * the shutdown sequence on SIGINT, SIGTERM and (under stdio) stdin closing — stop intake, cancel
 * running tasks, flush events until the deadline, close the transport, exit 0. Reads the flags
 * `--read-only` and `--allow-tools <patterns>` from the command line. A configuration or decoration
 * error is printed to stderr with its fix, and the process exits 1.
 */
export async function runServer<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: RunServerOptions<T> = {},
): Promise<{ app: RobotMcpApp; info: ListenInfo }> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let app: RobotMcpApp;
  let info: ListenInfo;
  let drainS = 0;
  try {
    const flags = parseServerArgs(options.argv ?? process.argv.slice(2));
    if (!options.logger) checkLogLevel(options.env ?? process.env);
    drainS = resolveStdioDrainS(options.env ?? process.env, options.stdioDrainS);
    const { stdioDrainS: _drain, exit: _exit, argv: _argv, ...bootstrapOptions } = options;
    app = bootstrap(ServerClass, {
      ...bootstrapOptions,
      ...(flags.readOnly ? { readOnly: true } : {}),
      ...(flags.allowTools ? { allowTools: flags.allowTools } : {}),
    });
    info = await app.listen();
  } catch (err) {
    const message = startErrorMessage(err);
    process.stderr.write(`robot-mcp-kit: cannot start ${ServerClass.name}: ${message}\n`);
    exit(1);
    throw err;
  }
  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    app.logger.info('shutting down', { reason });
    // A last resort if something (a stuck transport, a body holding the loop) outlives the deadline.
    // It is deliberately not unref'd: every kit timer is, so once stdin has closed nothing else
    // would keep the process alive through the flush, and it would exit before trying.
    const hardDeadlineMs = (options.shutdownTimeoutMs ?? 10_000) + 5_000;
    const hard = setTimeout(() => {
      app.logger.error('shutdown did not finish in time; exiting', { deadline_ms: hardDeadlineMs });
      exit(1);
    }, hardDeadlineMs);
    app
      .close()
      .then(() => {
        clearTimeout(hard);
        exit(0);
      })
      .catch((err: unknown) => {
        clearTimeout(hard);
        app.logger.error('shutdown failed', { error: String(err) });
        exit(1);
      });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  if (info.kind === 'stdio') {
    let closed = false;
    const stdinClosed = (): void => {
      if (closed || stopping) return;
      closed = true;
      void drainTasks(app, drainS).then(() => stop('stdin closed'));
    };
    process.stdin.once('end', stdinClosed);
    process.stdin.once('close', stdinClosed);
  }
  return { app, info };
}

/**
 * After stdin closed with `drainS` > 0: takes no new task and lets the running ones finish (their
 * events go out as usual) for at most `drainS` seconds; resolves when none runs or the time is up
 * (the shutdown then cancels what is left). The timer is not unref'd: with stdin gone it is what
 * keeps the process alive while the bodies' (unref'd) kit timers run.
 */
function drainTasks(app: RobotMcpApp, drainS: number): Promise<void> {
  const running = app.taskManager.runningCount;
  if (drainS <= 0 || running === 0) return Promise.resolve();
  app.starter.stopIntake();
  app.logger.info('stdin closed; letting running tasks finish before shutting down', {
    running_tasks: running,
    drain_s: drainS,
  });
  return new Promise<void>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      stopWatching();
      resolve();
    };
    const timer = setTimeout(done, drainS * 1000);
    const stopWatching = app.taskManager.onChange((change) => {
      if (change.kind === 'finished' && app.taskManager.runningCount === 0) done();
    });
  });
}

/** One line for a start-up error: kit errors and a port in use with their fix, anything else with its stack. */
function startErrorMessage(err: unknown): string {
  const listenError = err as { code?: unknown; port?: unknown; address?: unknown };
  if (listenError?.code === 'EADDRINUSE' || listenError?.code === 'EACCES') {
    const where = String(listenError.address ?? 'MCP_HOST');
    const problem =
      listenError.code === 'EADDRINUSE'
        ? `port ${String(listenError.port)} on ${where} is already in use (is another server still running?)`
        : `no permission to listen on port ${String(listenError.port)} on ${where} (ports below 1024 need privileges)`;
    const config = new ConfigError(
      'MCP_PORT',
      `${problem}; stop the other process, or set MCP_PORT to a free port (0 picks one), or MCP_HOST to another address`,
    );
    return `${config.code}: ${config.message}`;
  }
  return err instanceof RobotMcpKitError
    ? `${err.code}: ${err.message}`
    : String((err as Error)?.stack ?? err);
}
