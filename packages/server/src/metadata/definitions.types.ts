import { type TriggerEvaluator } from '@robot-mcp-kit/core';
import { type DtoClass, type ToolAnnotationsArgs } from './decorator-args.types.js';

/** Built once at bootstrap from the recorded metadata; frozen. */
export interface ServerDefinition {
  readonly name: string;
  readonly version: string;
  readonly title?: string;
  readonly description?: string;
  readonly instructions?: string;
}

export interface ToolDefinitionBase {
  readonly name: string;
  readonly description: string;
  readonly title?: string;
  /** Resolved annotations: defaults applied (actuating → destructiveHint). */
  readonly annotations: Readonly<ToolAnnotationsArgs>;
  readonly actuates: boolean;
  /** The tool's own OAuth scope (`scope` of the decorator), if it names one. */
  readonly scope?: string;
  /** `estop: true` or `rearm: true` of the decorator. */
  readonly safety?: 'estop' | 'rearm';
  /** The confirmation message template (`confirm` of the decorator; `true` becomes a default). */
  readonly confirm?: string;
  readonly methodName: string;
  /** The DTO class, or undefined for a tool without arguments. */
  readonly dto?: DtoClass;
  /**
   * A tool of the kit itself (reconciliation, event feed), explored with `{ kit: true }`: it may use
   * a reserved name, is offered with origin `kit`, and its method also receives the raw `ToolCall`.
   */
  readonly kit?: true;
}

export interface PlainToolDefinition extends ToolDefinitionBase {
  readonly kind: 'tool';
  /** The DTO class of the tool's result (`@Tool({ result })`): its outputSchema and check. */
  readonly result?: DtoClass;
}

export interface LongRunningToolDefinition extends ToolDefinitionBase {
  readonly kind: 'long-running';
  readonly estDurationS?: number | ((args: never) => number | undefined);
  readonly maxConcurrent?: number;
  readonly preempt: boolean;
  /** Cancel the task when its session goes away (default false: tasks outlive sessions). */
  readonly cancelOnDisconnect: boolean;
}

export type ToolDefinition = PlainToolDefinition | LongRunningToolDefinition;

export interface TriggerDefinition {
  readonly type: string;
  readonly methodName: string;
  readonly description?: string;
  readonly validate?: TriggerEvaluator['validate'];
}

/** Everything the bootstrapper needs to wire a capability server class. */
export interface CapabilityServerDefinition {
  readonly server: ServerDefinition;
  readonly tools: readonly ToolDefinition[];
  readonly triggers: readonly TriggerDefinition[];
}
