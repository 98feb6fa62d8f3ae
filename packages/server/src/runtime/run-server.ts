import { RobotMcpKitError } from '@robot-mcp-kit/core';
import { bootstrap, type BootstrapOptions, type CapabilityServerClass } from './bootstrap.js';
import { type ListenInfo, type RobotMcpApp } from './robot-mcp-app.js';

/** Options of {@link runServer}. */
export interface RunServerOptions<T extends object> extends BootstrapOptions<T> {
  /** Called instead of `process.exit` (tests). */
  exit?: (code: number) => void;
}

/**
 * The `main.ts` one-liner: bootstraps the class, listens on the configured transport and installs
 * the shutdown sequence on SIGINT, SIGTERM and (under stdio) stdin closing — stop intake, cancel
 * running tasks, flush events until the deadline, close the transport, exit 0. A configuration or
 * decoration error is printed to stderr with its fix, and the process exits 1.
 */
export async function runServer<T extends object>(
  ServerClass: CapabilityServerClass<T>,
  options: RunServerOptions<T> = {},
): Promise<{ app: RobotMcpApp; info: ListenInfo }> {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let app: RobotMcpApp;
  let info: ListenInfo;
  try {
    app = bootstrap(ServerClass, options);
    info = await app.listen();
  } catch (err) {
    const message =
      err instanceof RobotMcpKitError ? `${err.code}: ${err.message}` : String((err as Error)?.stack ?? err);
    process.stderr.write(`robot-mcp-kit: cannot start ${ServerClass.name}: ${message}\n`);
    exit(1);
    throw err;
  }
  let stopping = false;
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    app.logger.info('shutting down', { reason });
    app
      .close()
      .then(() => exit(0))
      .catch((err: unknown) => {
        app.logger.error('shutdown failed', { error: String(err) });
        exit(1);
      });
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  if (info.kind === 'stdio') {
    process.stdin.once('end', () => stop('stdin closed'));
    process.stdin.once('close', () => stop('stdin closed'));
  }
  return { app, info };
}
