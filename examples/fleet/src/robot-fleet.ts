import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The built navigation example (`npm run build`), from this file in src/ or dist/. */
export const NAVIGATION_MAIN = fileURLToPath(new URL('../../navigation/dist/main.js', import.meta.url));

/** One simulated robot: a navigation server over stdio, driven with the official MCP client. */
export interface Robot {
  readonly name: string;
  /** Starts `navigate_to goal`; resolves with the task id. */
  navigate(goal: string): Promise<string>;
  close(): Promise<void>;
}

/** Options of {@link startRobot}. */
export interface RobotOptions {
  /** `RVC_CALLBACK_URL`, e.g. `mqtt://127.0.0.1:1883?topic_prefix=fleet/robot-1`. */
  callbackUrl: string;
  secret: string;
  /** Driving speed (`NAV_SPEED_MPS`, default 2) and tick (`NAV_TICK_MS`, default 250). */
  speedMps?: number;
  tickMs?: number;
}

export async function startRobot(name: string, options: RobotOptions): Promise<Robot> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NAVIGATION_MAIN],
    env: {
      PATH: process.env.PATH ?? '',
      RVC_CALLBACK_URL: options.callbackUrl,
      RVC_EVENT_SECRET: options.secret,
      NAV_SPEED_MPS: String(options.speedMps ?? 2),
      NAV_TICK_MS: String(options.tickMs ?? 250),
      NAV_CLOSED_DOORS: '',
      LOG_LEVEL: 'error',
    },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: `fleet-${name}`, version: '0.1.0' });
  try {
    await client.connect(transport);
  } catch (err) {
    throw new Error(
      `robot ${name} did not start: ${err instanceof Error ? err.message : String(err)}\n${log}`,
    );
  }
  return {
    name,
    async navigate(goal: string): Promise<string> {
      const result = (await client.callTool({ name: 'navigate_to', arguments: { goal } })) as CallToolResult;
      const info = result.structuredContent as { task_id?: string } | undefined;
      if (result.isError || typeof info?.task_id !== 'string') {
        throw new Error(`robot ${name}: navigate_to ${goal} failed: ${JSON.stringify(result.content)}`);
      }
      return info.task_id;
    },
    close: () => client.close(),
  };
}
