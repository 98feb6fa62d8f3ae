import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { Resources } from '../support/processes.js';
import {
  CLIENT_TIMEOUT_MS,
  expectScenario,
  runClient,
  startNavigation,
  TOKEN,
} from '../support/real-clients.js';

const resources = new Resources();
const configDir = mkdtempSync(join(tmpdir(), 'rmk-mcp-remote-'));
let url = '';
beforeAll(async () => {
  url = await startNavigation(resources, { RMK_AUTH_TOKEN: TOKEN });
});
afterAll(async () => {
  await resources.cleanup();
  rmSync(configDir, { recursive: true, force: true });
});

describe('mcp-remote (stdio <-> streamable HTTP, --header bearer) driven by the SDK client over stdio', () => {
  it(
    'lists, calls, follows a drive, waits for an earlier trigger and cancels',
    async () => {
      expectScenario(await runClient(resources, 'mcp-remote.client.mjs', [url, TOKEN, configDir]));
    },
    CLIENT_TIMEOUT_MS,
  );
});
