import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Resources } from '../support/processes.js';
import {
  CLIENT_TIMEOUT_MS,
  expectScenario,
  runClient,
  startNavigation,
  TOKEN,
} from '../support/real-clients.js';

const resources = new Resources();
let url = '';
beforeAll(async () => {
  url = await startNavigation(resources, { RMK_AUTH_TOKEN: TOKEN });
});
afterAll(() => resources.cleanup());

describe('@langchain/mcp-adapters (MultiServerMCPClient, bearer token) on the built navigation example', () => {
  it(
    'lists, calls, follows a drive, waits for an earlier trigger and cancels',
    async () => {
      const report = await runClient(resources, 'langchain-adapters.client.mjs', [url, TOKEN]);
      expectScenario(report);
      // One-block results reach the agent as the structuredContent object, kit tools included; a
      // long-running start has two blocks (TaskInfo text and the tasks:// link), which LangChain hands as blocks.
      expect(report.shapes).toMatchObject({
        get_map: 'structuredContent',
        get_task: 'structuredContent',
        wait_for_event: 'structuredContent',
        cancel_task: 'structuredContent',
        navigate_to: ['text', 'file tasks'],
      });
    },
    CLIENT_TIMEOUT_MS,
  );
});
