import {
  type ClassDeclarationStructure,
  type MethodDeclarationStructure,
  type OptionalKind,
  type PropertyDeclarationStructure,
  StructureKind,
} from 'ts-morph';
import { type NamedImport } from '../project/imports.js';

/** The names one new tool is written with. */
export interface ToolNames {
  /** `scan_room` */
  readonly tool: string;
  /** `scanRoom` */
  readonly method: string;
  /** `ScanRoomArgs` */
  readonly dto: string;
}

/** What a new tool adds to the server file. */
export interface ToolSnippet {
  readonly dto: ClassDeclarationStructure;
  readonly method: OptionalKind<MethodDeclarationStructure>;
  /** Imports the DTO and the method need, by module. */
  readonly imports: Readonly<Record<string, readonly NamedImport[]>>;
}

type Property = OptionalKind<PropertyDeclarationStructure>;

const decorator = (name: string, ...args: string[]) => ({ name, arguments: args });

/**
 * The DTO, method and imports of a `@LongRunningTool` (steps with progress) or a plain `@Tool`;
 * `actuates` marks a tool that acts on the world (annotated destructive, hidden by `--read-only`),
 * otherwise it is annotated `readOnlyHint: true`.
 */
export function toolSnippet(names: ToolNames, longRunning: boolean, actuates = longRunning): ToolSnippet {
  return longRunning ? longRunningSnippet(names, actuates) : plainSnippet(names, actuates);
}

/** The decorator line saying whether the tool acts on the world. */
function actingLine(actuates: boolean): string {
  return actuates
    ? '  actuates: true, // acts on the world: hidden by --read-only'
    : '  annotations: { readOnlyHint: true },';
}

function dtoClass(names: ToolNames, properties: Property[]): ClassDeclarationStructure {
  return {
    kind: StructureKind.Class,
    name: names.dto,
    isExported: true,
    docs: [
      `Arguments of \`${names.tool}\`. Each property is a tool parameter; @JSONSchema describes it to the LLM.`,
    ],
    properties: properties.map((property, i) =>
      i === 0 ? property : { ...property, leadingTrivia: (w) => w.blankLine() },
    ),
  };
}

function longRunningSnippet(names: ToolNames, actuates: boolean): ToolSnippet {
  return {
    dto: dtoClass(names, longRunningProperties()),
    method: longRunningMethod(names, actuates),
    imports: {
      'class-validator': [{ name: 'IsInt' }, { name: 'IsOptional' }, { name: 'Max' }, { name: 'Min' }],
      '@robot-mcp-kit/server': [
        { name: 'JSONSchema' },
        { name: 'LongRunningTool' },
        { name: 'TaskContext', typeOnly: true },
      ],
    },
  };
}

/** `steps` (required) and `step_ms` (optional), validated. */
function longRunningProperties(): Property[] {
  return [
    {
      name: 'steps',
      type: 'number',
      hasExclamationToken: true,
      decorators: [
        decorator('JSONSchema', "{ description: 'How many steps to run (1 to 1000)' }"),
        decorator('IsInt'),
        decorator('Min', '1'),
        decorator('Max', '1000'),
      ],
    },
    {
      name: 'step_ms',
      type: 'number',
      hasQuestionToken: true,
      decorators: [
        decorator('JSONSchema', "{ description: 'Duration of one step in milliseconds (default 1000)' }"),
        decorator('IsOptional'),
        decorator('IsInt'),
        decorator('Min', '0'),
        decorator('Max', '60000'),
      ],
    },
  ];
}

/** The `@LongRunningTool` method: `steps` steps of `step_ms`, with progress after each. */
function longRunningMethod(names: ToolNames, actuates: boolean): OptionalKind<MethodDeclarationStructure> {
  return {
    name: names.method,
    isAsync: true,
    docs: ['Runs as a task: the call returns a task_id at once; progress and the result arrive as events.'],
    decorators: [
      decorator(
        'LongRunningTool',
        [
          '{',
          '  description:',
          `    '${names.tool}: runs \`steps\` steps in the background and returns a task_id at once; ' +`,
          "    'progress {step, percent, eta_s} after each step. Replace this with what the tool does.',",
          `  estDurationS: (args: ${names.dto}) => (args.steps * (args.step_ms ?? 1000)) / 1000,`,
          actingLine(actuates),
          '}',
        ].join('\n'),
      ),
    ],
    parameters: [
      { name: 'args', type: names.dto },
      { name: 'ctx', type: 'TaskContext' },
    ],
    returnType: 'Promise<{ steps_done: number }>',
    statements: [
      [
        'const stepMs = args.step_ms ?? 1000;',
        'for (let step = 1; step <= args.steps; step += 1) {',
        '  // Replace with the real work; ctx.signal aborts when the task is cancelled.',
        '  await ctx.sleep(stepMs);',
        '  await ctx.progress({',
        '    step,',
        '    percent: Math.round((100 * step) / args.steps),',
        '    eta_s: ((args.steps - step) * stepMs) / 1000,',
        '  });',
        '}',
        'return { steps_done: args.steps };',
      ].join('\n'),
    ],
  };
}

function plainSnippet(names: ToolNames, actuates: boolean): ToolSnippet {
  return {
    dto: dtoClass(names, [
      {
        name: 'note',
        type: 'string',
        hasQuestionToken: true,
        decorators: [
          decorator('JSONSchema', "{ description: 'Optional note, echoed back in the answer' }"),
          decorator('IsOptional'),
          decorator('IsString'),
          decorator('MaxLength', '200'),
        ],
      },
    ]),
    method: {
      name: names.method,
      docs: ['Answers at once with what it returns (an object becomes JSON).'],
      decorators: [
        decorator(
          'Tool',
          [
            '{',
            `  description: '${names.tool}: answers at once. Replace this with what the tool does.',`,
            actingLine(actuates),
            '}',
          ].join('\n'),
        ),
      ],
      parameters: [
        { name: 'args', type: names.dto },
        { name: 'ctx', type: 'ToolCallContext' },
      ],
      returnType: '{ tool: string; note: string | null }',
      statements: [
        [
          `ctx.logger.debug('${names.tool} called', { note: args.note });`,
          `return { tool: '${names.tool}', note: args.note ?? null };`,
        ].join('\n'),
      ],
    },
    imports: {
      'class-validator': [{ name: 'IsOptional' }, { name: 'IsString' }, { name: 'MaxLength' }],
      '@robot-mcp-kit/server': [
        { name: 'JSONSchema' },
        { name: 'Tool' },
        { name: 'ToolCallContext', typeOnly: true },
      ],
    },
  };
}
