import { type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The arguments a scale child is forked with: `<tasks> <stepMs> <inFlight> [receiverUrl]`. */
export interface ScaleChildArgs {
  readonly tasks: number;
  readonly stepMs: number;
  readonly inFlight: number;
  readonly receiverUrl: string | undefined;
}

export function scaleChildArgs(argv: readonly string[] = process.argv): ScaleChildArgs {
  return {
    tasks: Number(argv[2] ?? 10_000),
    stepMs: Number(argv[3] ?? 300),
    inFlight: Number(argv[4] ?? 64),
    receiverUrl: argv[5],
  };
}

/** Sends the child's result to the parent (exit code 0), or writes why it failed (exit code 1). */
export function reportToParent(what: string, result: Promise<unknown>): void {
  result.then(
    (value) => {
      process.send?.(value);
      process.exitCode = 0;
    },
    (err: unknown) => {
      process.stderr.write(
        `${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}

/**
 * Calls `patrol` `tasks` times through `client`, `inFlight` at a time, and checks that each one
 * started a running task; returns the task ids. Both scale children start their tasks here, and
 * keep only the ids: the answers themselves (~1 KB each) are not what a server's memory is made of.
 */
export async function startPatrols(
  client: Client,
  tasks: number,
  stepMs: number,
  inFlight: number,
): Promise<Set<string>> {
  const ids = new Set<string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks) {
      next += 1;
      const result = (await client.callTool({
        name: 'patrol',
        arguments: { step_ms: stepMs },
      })) as CallToolResult;
      const info = result.structuredContent as { task_id?: string; state?: string } | undefined;
      if (result.isError || !info?.task_id || info.state !== 'running') {
        throw new Error(`a patrol did not start: ${JSON.stringify(result).slice(0, 300)}`);
      }
      ids.add(info.task_id);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, tasks) }, worker));
  if (ids.size !== tasks) throw new Error(`${tasks} calls gave ${ids.size} distinct task ids`);
  return ids;
}
