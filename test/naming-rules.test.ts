import { describe, expect, it } from '@jest/globals';
import {
  BUILTIN_TRIGGER_TYPES,
  MCP_TRANSPORTS,
  RESERVED_TOOL_NAMES,
  toCamelCase,
} from '@robot-mcp-kit/core/rules';
import { validateToolName as cliValidateToolName, validateTriggerType } from '@robot-mcp-kit/cli';
import { CapabilityServer, DecorationError, Tool, Trigger } from '@robot-mcp-kit/server';
import { connectTestClient } from '@robot-mcp-kit/server/testing';
import {
  BUILTIN_TRIGGER_PLUGINS,
  exploreCapabilityServer,
  RESERVED_TOOL_NAMES as SERVER_RESERVED,
  transportConfigFromEnv,
} from '@robot-mcp-kit/server/advanced';
import { validateToolName as generatorValidateToolName } from 'create-robot-mcp-server';
import { checkTransport } from '../packages/cli/src/doctor/doctor.checks.js';
import { validateTransport } from '../packages/create-robot-mcp-server/src/validation.js';

type Verdict = { ok: true; name: string } | { ok: false };

function verdict(validate: (name: string) => string, name: string): Verdict {
  try {
    return { ok: true, name: validate(name) };
  } catch {
    return { ok: false };
  }
}

/** The tool name the server serves for a class with one `@Tool` method, or the error it raises. */
function served(method: string, explicitName?: string): Verdict {
  class Scaffolded {}
  const descriptor: PropertyDescriptor = {
    value: (): Promise<string> => Promise.resolve('ok'),
    writable: true,
    configurable: true,
  };
  Object.defineProperty(Scaffolded.prototype, method, descriptor);
  Tool({ description: 'scaffolded', ...(explicitName ? { name: explicitName } : {}) })(
    Scaffolded.prototype,
    method,
    descriptor,
  );
  CapabilityServer({ name: 'rules', version: '1.0.0' })(Scaffolded);
  try {
    const [tool] = exploreCapabilityServer(Scaffolded).tools;
    return { ok: true, name: tool!.name };
  } catch (err) {
    if (err instanceof DecorationError) return { ok: false };
    throw err;
  }
}

const NAMES = [
  'patrol',
  'scan_room',
  'get_status2',
  'scan2d_room',
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(65),
  'ScanRoom',
  'scan-room',
  'scan_2d',
  'a_b_c',
  '_scan',
  'scan__room',
  '2scan',
  'scan room',
  '',
  ...RESERVED_TOOL_NAMES,
];

describe('one naming rule: the CLI, the generator and the server agree', () => {
  it.each(NAMES)('tool name %j', (name) => {
    const cli = verdict(cliValidateToolName, name);
    const generator = verdict((n) => generatorValidateToolName(n), name);
    expect(generator).toEqual(cli);
    if (cli.ok) {
      // A scaffolded method is served under exactly the name the CLI and the generator accepted.
      expect(served(toCamelCase(name))).toEqual({ ok: true, name });
    } else if (name.length > 0) {
      // What the server refuses as an explicit name, the scaffolders refuse too.
      const explicit = served('handler', name);
      if (!explicit.ok) expect(cli.ok).toBe(false);
    }
  });

  it('reserves the same tool names everywhere, and the server refuses each', () => {
    expect(SERVER_RESERVED).toBe(RESERVED_TOOL_NAMES);
    for (const name of RESERVED_TOOL_NAMES) {
      expect(served('handler', name)).toEqual({ ok: false });
      expect(verdict(cliValidateToolName, name)).toEqual({ ok: false });
      expect(verdict((n) => generatorValidateToolName(n), name)).toEqual({ ok: false });
    }
  });

  it('the server serves a 128-character name and refuses 129 (the MCP limit)', () => {
    expect(served('handler', 'n'.repeat(128))).toEqual({ ok: true, name: 'n'.repeat(128) });
    expect(served('handler', 'n'.repeat(129))).toEqual({ ok: false });
  });

  it('knows the same built-in trigger types: the CLI will not scaffold one the server has', () => {
    expect(BUILTIN_TRIGGER_PLUGINS.map((p) => p.type)).toEqual(BUILTIN_TRIGGER_TYPES);
    for (const type of BUILTIN_TRIGGER_TYPES) {
      expect(() => validateTriggerType(type)).toThrow('is a built-in trigger type');
    }
  });

  it.each(['battery_below', 'x'.repeat(64), 'x'.repeat(65), 'Battery', 'eta__below', 'eta_', '1st'])(
    'trigger type %j: the CLI accepts what the server accepts',
    (type) => {
      const cli = verdict(validateTriggerType, type);
      class WithTrigger {}
      const descriptor = { value: () => undefined, writable: true, configurable: true };
      Object.defineProperty(WithTrigger.prototype, 'evaluate', descriptor);
      Trigger(type, { description: 'custom' })(WithTrigger.prototype, 'evaluate', descriptor);
      CapabilityServer({ name: 'rules', version: '1.0.0' })(WithTrigger);
      let server: Verdict;
      try {
        server = { ok: true, name: exploreCapabilityServer(WithTrigger).triggers[0]!.type };
      } catch (err) {
        if (!(err instanceof DecorationError)) throw err;
        server = { ok: false };
      }
      expect(cli).toEqual(server);
    },
  );

  it.each([...MCP_TRANSPORTS, 'websocket', 'http'])(
    'transport %j: server, doctor and generator agree',
    (kind) => {
      let server: boolean;
      try {
        transportConfigFromEnv({ MCP_TRANSPORT: kind });
        server = true;
      } catch {
        server = false;
      }
      const doctor = checkTransport({ MCP_TRANSPORT: kind }).every((r) => r.status !== 'fail');
      let generator: boolean;
      try {
        validateTransport(kind);
        generator = true;
      } catch {
        generator = false;
      }
      expect({ doctor, generator }).toEqual({ doctor: server, generator: server });
      expect(server).toBe((MCP_TRANSPORTS as readonly string[]).includes(kind));
    },
  );

  it('the tools the kit registers itself are exactly the reserved names', async () => {
    @CapabilityServer({ name: 'kit-tools', version: '1.0.0' })
    class OneTool {
      @Tool({ description: 'pings' })
      ping(): string {
        return 'pong';
      }
    }
    const t = await connectTestClient(OneTool);
    try {
      const { tools } = await t.client.listTools();
      const kit = tools.map((tool) => tool.name).filter((name) => name !== 'ping');
      expect(kit.sort()).toEqual([...RESERVED_TOOL_NAMES].sort());
    } finally {
      await t.close();
    }
  });
});
