import { describe, expect, it } from '@jest/globals';
import { IsString } from 'class-validator';
import { type JsonObject, type TaskContext } from '@robot-mcp-kit/core';
import {
  bootstrap,
  CapabilityServer,
  DecorationError,
  LongRunningTool,
  Tool,
  Trigger,
} from '@robot-mcp-kit/server';
import { exploreCapabilityServer, METADATA_KEYS } from '@robot-mcp-kit/server/advanced';
import { scanMethodNames } from '../../src/scanning/method.scanner.js';
import { RoverServer } from '../fixtures/rover.server.js';

class NameArgs {
  @IsString()
  name!: string;
}

describe('decorators record metadata only', () => {
  it('records frozen arguments and registers nothing at import time', () => {
    const recorded = Reflect.getMetadata(METADATA_KEYS.capabilityServer, RoverServer) as Record<
      string,
      unknown
    >;
    expect(recorded).toEqual({ name: 'rover', version: '1.2.3', instructions: 'Drive the rover.' });
    expect(Object.isFrozen(recorded)).toBe(true);
    const tool = Reflect.getMetadata(METADATA_KEYS.longRunningTool, RoverServer.prototype, 'drive') as {
      args: object;
    };
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.isFrozen(tool.args)).toBe(true);
    expect(() => {
      (recorded as { name: string }).name = 'x';
    }).toThrow(TypeError);
  });

  it('does not share the caller’s argument objects', () => {
    const annotations = { readOnlyHint: true };
    class S {
      @Tool({ description: 'd', annotations })
      t(): string {
        return '';
      }
    }
    annotations.readOnlyHint = false;
    const recorded = Reflect.getMetadata(METADATA_KEYS.tool, S.prototype, 't') as {
      args: { annotations: object };
    };
    expect(recorded.args.annotations).toEqual({ readOnlyHint: true });
  });
});

describe('scanner and explorers', () => {
  it('lists own and inherited methods, nearest first, without duplicates', () => {
    class Base {
      a(): void {}
      b(): void {}
    }
    class Derived extends Base {
      override b(): void {}
      c(): void {}
    }
    expect(scanMethodNames(Derived)).toEqual(['b', 'c', 'a']);
  });

  it('builds frozen definitions with snake_case names and resolved annotations', () => {
    const def = exploreCapabilityServer(RoverServer);
    expect(Object.isFrozen(def)).toBe(true);
    expect(def.server).toEqual({ name: 'rover', version: '1.2.3', instructions: 'Drive the rover.' });
    expect(def.tools.map((t) => [t.name, t.kind])).toEqual([
      ['drive', 'long-running'],
      ['echo', 'tool'],
      ['ping', 'tool'],
      ['explode', 'tool'],
    ]);
    expect(def.tools[0]).toMatchObject({
      actuates: true,
      annotations: { destructiveHint: true, readOnlyHint: false },
    });
    expect(def.triggers.map((t) => t.type)).toEqual(['battery_below']);
  });

  it('inherits decorated tools from a base class', () => {
    @CapabilityServer({ name: 'child', version: '1' })
    class Child extends RoverServer {}
    expect(exploreCapabilityServer(Child).tools.map((t) => t.name)).toContain('drive');
  });
});

describe('decoration mistakes fail at bootstrap with a fix', () => {
  const expectDecorationError = (fn: () => unknown, ...parts: RegExp[]) => {
    let error: unknown;
    try {
      fn();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(DecorationError);
    expect((error as DecorationError).code).toBe('DECORATION_INVALID');
    for (const part of parts) expect((error as Error).message).toMatch(part);
    expect((error as Error).message).toMatch(/Fix: /);
  };

  it('a class without @CapabilityServer', () => {
    class Plain {}
    expectDecorationError(() => bootstrap(Plain, { env: {} }), /Plain/, /@CapabilityServer/);
  });

  it('duplicate tool names', () => {
    @CapabilityServer({ name: 'dup', version: '1' })
    class Dup {
      @Tool({ name: 'same', description: 'a' })
      one(): string {
        return '';
      }
      @Tool({ name: 'same', description: 'b' })
      two(): string {
        return '';
      }
    }
    expectDecorationError(() => bootstrap(Dup, { env: {} }), /"same" is already used by Dup\.one/);
  });

  it('a reserved tool name', () => {
    @CapabilityServer({ name: 'res', version: '1' })
    class Res {
      @Tool({ description: 'a' })
      getTask(): string {
        return '';
      }
    }
    expectDecorationError(() => bootstrap(Res, { env: {} }), /"get_task" is reserved/);
  });

  it('a long-running generator method (it can never return a Promise)', () => {
    @CapabilityServer({ name: 'gen', version: '1' })
    class Gen {
      @LongRunningTool({ description: 'a' })
      *run(_args: NameArgs, _ctx: TaskContext): Generator<JsonObject> {
        yield {};
      }
    }
    expectDecorationError(() => bootstrap(Gen, { env: {} }), /Gen\.run/, /not on a generator/, /async run/);
  });

  it('a missing DTO', () => {
    @CapabilityServer({ name: 'nodto', version: '1' })
    class NoDto {
      @LongRunningTool({ description: 'a' })
      async run(_args: { name: string }, _ctx: TaskContext): Promise<JsonObject> {
        return {};
      }
    }
    expectDecorationError(() => bootstrap(NoDto, { env: {} }), /NoDto\.run/, /DTO/, /\{ args: /);
  });

  it('an argument class with no validation decorators, naming the class and its properties', () => {
    class MoveJointArgs {
      joint = '';
      angle_deg = 0;
    }
    @CapabilityServer({ name: 'arm', version: '1' })
    class Arm {
      @Tool({ description: 'Move one joint', actuates: true })
      moveJoint(_args: MoveJointArgs): string {
        return '';
      }
    }
    expectDecorationError(
      () => bootstrap(Arm, { env: {} }),
      /Arm\.moveJoint/,
      /MoveJointArgs has no class-validator decorators/,
      /joint, angle_deg/,
      /@IsString\(\) joint!: string/,
    );
    class BareArgs {
      joint!: string;
    }
    @CapabilityServer({ name: 'arm2', version: '1' })
    class Arm2 {
      @LongRunningTool({ description: 'Move', args: BareArgs })
      async move(): Promise<JsonObject> {
        return {};
      }
    }
    expectDecorationError(
      () => bootstrap(Arm2, { env: {} }),
      /Arm2\.move/,
      /BareArgs has no class-validator/,
    );
  });

  it('missing decorator metadata (tsx/esbuild), naming emitDecoratorMetadata and the fix', () => {
    // What esbuild emits: the decorators run, but no design:paramtypes is recorded.
    class Esbuilt {
      async grasp(_args: unknown, _ctx: TaskContext): Promise<JsonObject> {
        return {};
      }
    }
    const descriptor = Object.getOwnPropertyDescriptor(Esbuilt.prototype, 'grasp')!;
    LongRunningTool({ description: 'Grasp' })(Esbuilt.prototype, 'grasp', descriptor);
    CapabilityServer({ name: 'esb', version: '1' })(Esbuilt);
    expect(Reflect.getMetadata('design:paramtypes', Esbuilt.prototype, 'grasp')).toBeUndefined();
    expectDecorationError(
      () => bootstrap(Esbuilt, { env: {} }),
      /Esbuilt\.grasp/,
      /emitDecoratorMetadata/,
      /tsx\/esbuild/,
      /\{ args: MyArgs \}/,
    );
  });

  it('an unknown trigger type in @Trigger', () => {
    @CapabilityServer({ name: 'trig', version: '1' })
    class Trig {
      @Trigger('eta_belwo')
      check(): undefined {
        return undefined;
      }
    }
    expectDecorationError(() => bootstrap(Trig, { env: {} }), /eta_belwo/, /not registered/, /eta_below/);
  });

  it('a tool without a description and a badly formed trigger type', () => {
    @CapabilityServer({ name: 'nodesc', version: '1' })
    class NoDesc {
      @Tool({ description: ' ' })
      t(): string {
        return '';
      }
    }
    expectDecorationError(() => bootstrap(NoDesc, { env: {} }), /no description/);
    @CapabilityServer({ name: 'badtype', version: '1' })
    class BadType {
      @Trigger('Eta Below')
      t(): undefined {
        return undefined;
      }
    }
    expectDecorationError(() => bootstrap(BadType, { env: {} }), /snake_case/);
  });

  it('an invalid server name', () => {
    @CapabilityServer({ name: 'bad name!', version: '1' })
    class BadName {}
    expectDecorationError(() => bootstrap(BadName, { env: {} }), /not a valid server name/);
  });
});

describe('configuration fails fast', () => {
  it('names the variable and how to fix it', () => {
    expect(() => bootstrap(RoverServer, { env: { MCP_TRANSPORT: 'carrier-pigeon' } })).toThrow(
      /MCP_TRANSPORT.*stdio, streamable-http, sse/,
    );
    expect(() => bootstrap(RoverServer, { env: { MCP_PORT: 'abc' } })).toThrow(/MCP_PORT/);
    expect(() => bootstrap(RoverServer, { env: { RVC_CALLBACK_URL: 'http://127.0.0.1:1/x' } })).toThrow(
      /RVC_EVENT_SECRET/,
    );
  });
});
