import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { ConfigError, type Logger } from '@robot-mcp-kit/core';
import { callbackUrl, loadReceiverConfig, type ReceiverConfig } from './receiver.config.js';

/** What the lifecycle needs of `process` (a fake in tests). */
export interface ProcessLike {
  once(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  exit(code: number): void;
}

/** The configuration, or exit 1 with the message (which names the variable and the fix). */
export function configOrExit(
  env: NodeJS.ProcessEnv,
  proc: ProcessLike = process,
  printError: (line: string) => void = (line) => console.error(line),
): ReceiverConfig {
  try {
    return loadReceiverConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    printError(`chat-app-receiver: ${err.message}`);
    proc.exit(1);
    throw err; // not reached with the real process
  }
}

/** Serves `app` on the configured host and port; prints `listening on <events URL>` on stdout. */
export async function listen(
  app: RequestListener,
  config: Pick<ReceiverConfig, 'host' | 'port'>,
  print: (line: string) => void = (line) => console.log(line),
): Promise<Server> {
  const server = createServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  print(`listening on ${callbackUrl(config.host, (server.address() as AddressInfo).port)}`);
  return server;
}

/**
 * On SIGINT/SIGTERM: stop intake (the receiver answers 503 and delivers what it holds), close
 * the HTTP server and the MCP connections, exit 0 (1 on an error or after `graceMs`).
 */
export function closeOnSignals(
  parts: { server: Server; receiver: { close(): Promise<void> }; servers: { close(): Promise<void> } },
  logger: Logger,
  proc: ProcessLike = process,
  graceMs = 5_000,
): void {
  let closing = false;
  const close = (signal: NodeJS.Signals): void => {
    if (closing) return;
    closing = true;
    logger.info('shutting down', { signal });
    const timer = setTimeout(() => proc.exit(1), graceMs).unref();
    void (async () => {
      let code = 0;
      try {
        await parts.receiver.close();
        await new Promise((resolve) => {
          parts.server.close(resolve);
          parts.server.closeAllConnections();
        });
        await parts.servers.close();
      } catch (err) {
        logger.error('shutdown failed', { error: err instanceof Error ? err.message : String(err) });
        code = 1;
      }
      clearTimeout(timer);
      proc.exit(code);
    })();
  };
  proc.once('SIGINT', close);
  proc.once('SIGTERM', close);
}
