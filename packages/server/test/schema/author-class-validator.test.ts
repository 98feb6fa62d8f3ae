import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { compileAuthorSource, createAuthorProject } from './fixtures/author-project.builder.js';
import { AUTHOR_SERVER_SOURCE, BAD_ARGS, GOOD_ARGS } from './fixtures/author.server.source.js';

// Process-level (`npm run build` first): an author project with its own class-validator — 0.14
// (the kit is built and tested with 0.15) and 0.15 — the built kit installed in its node_modules.
// The author's server lists its tool and refuses bad arguments exactly as those libraries say.

type Report = {
  version: string;
  authorClassValidator: string;
  kitClassValidator: string;
  loaded: string[];
  schemas: Record<string, Record<string, unknown>>;
  problems: string[];
};

/** The author's class-validator: a version and the workspace folder that holds it. */
const VERSIONS: [string, RegExp, string][] = [
  ['0.14', /^0\.14\./, resolve('node_modules/class-validator-0.14')],
  ['0.15', /^0\.15\./, resolve('node_modules/class-validator')],
];
const REF = '#/definitions/';

/** The library's schema of `name` with each `$ref` replaced by its definition (the kit's documented inlining). */
function inlined(schemas: Report['schemas'], node: unknown, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inlined(schemas, item, stack));
  if (node === null || typeof node !== 'object') return node;
  const { $ref, ...rest } = node as Record<string, unknown>;
  if (typeof $ref === 'string') {
    const name = $ref.slice(REF.length);
    if (stack.includes(name)) return { type: 'object', ...rest };
    return { ...(inlined(schemas, schemas[name], [...stack, name]) as object), ...rest };
  }
  return Object.fromEntries(
    Object.entries(rest).map(([key, value]) => [key, inlined(schemas, value, stack)]),
  );
}

describe.each(VERSIONS)(
  "an author's own class-validator %s (the kit peers with ^0.14 || ^0.15)",
  (_name, version, folder) => {
    let dir: string;
    let client: Client;
    let report: Report;

    beforeAll(async () => {
      dir = createAuthorProject(folder);
      writeFileSync(join(dir, 'author.server.js'), compileAuthorSource(AUTHOR_SERVER_SOURCE));
      client = new Client({ name: 'author-test', version: '1.0.0' });
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(dir, 'author.server.js')],
        cwd: dir,
        env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn' },
        stderr: 'inherit',
      });
      await client.connect(transport); // answers once the server is up, so report.json is written
      report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    }, 60_000);

    afterAll(async () => {
      await client?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('is the one copy the author, the kit and class-validator-jsonschema load', () => {
      expect(report.version).toMatch(version);
      expect(report.kitClassValidator).toBe(report.authorClassValidator);
      expect(report.loaded.length).toBeGreaterThan(0);
      // every class-validator file in the process is the author's copy: no second copy loads
      expect(report.loaded.filter((file) => !file.startsWith(`${folder}/`))).toEqual([]);
    });

    it("tools/list shows class-validator-jsonschema's schema of the author's DTO (inlined, closed)", async () => {
      const { tools } = await client.listTools();
      const plan = tools.find((tool) => tool.name === 'plan');
      const library = report.schemas.PlanArgs;
      expect(library).toBeDefined();
      expect(plan?.inputSchema).toEqual({
        ...(inlined(report.schemas, library, ['PlanArgs']) as object),
        additionalProperties: false,
      });
      // the decorators' own words: not an empty schema
      expect(plan?.inputSchema).toMatchObject({
        properties: { name: { type: 'string', maxLength: 8, description: 'Route name' } },
        required: expect.arrayContaining(['name', 'mode', 'waypoints']) as unknown,
      });
    }, 30_000);

    it("refuses bad arguments with the author's class-validator's own messages, field by field", async () => {
      const result = (await client.callTool({ name: 'plan', arguments: BAD_ARGS })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(report.problems).toEqual(
        expect.arrayContaining([
          'name: name must be shorter than or equal to 8 characters',
          'colour: property colour should not exist',
        ]),
      );
      expect(result.content).toEqual([
        { type: 'text', text: `Invalid arguments for plan: ${report.problems.join('; ')}` },
      ]);
    }, 30_000);

    it('runs the tool with good arguments, nested DTOs as instances', async () => {
      const result = (await client.callTool({ name: 'plan', arguments: GOOD_ARGS })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent ?? JSON.parse((result.content[0] as { text: string }).text)).toEqual({
        planned: 'dock',
        points: 1,
        waypoint_is_dto: true,
      });
    }, 30_000);
  },
);
