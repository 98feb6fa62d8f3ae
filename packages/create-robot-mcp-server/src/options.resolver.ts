import { basename, resolve } from 'node:path';
import { type CreateArgs } from './args.parser.js';
import { GeneratorError } from './generator.error.js';
import { type Prompter } from './prompts.js';
import {
  suggestServerName,
  type Transport,
  TRANSPORTS,
  validateDescription,
  validateServerName,
  validateToolName,
  validateTransport,
} from './validation.js';

/** Everything needed to generate a project, validated. */
export interface ProjectOptions {
  /** Absolute target directory. */
  directory: string;
  name: string;
  description: string;
  transport: Transport;
  /** Name of the `@LongRunningTool`. */
  longRunningTool: string;
  /** Name of the plain `@Tool`. */
  plainTool: string;
  /** Whether the user's first tool is the long-running one. */
  firstToolLongRunning: boolean;
  /**
   * Whether the user's first tool acts on the world (`actuates: true`: hidden by `--read-only`).
   * The companion acts when it is the long-running `patrol`, and reads when it is `get_status`.
   */
  firstToolActuates: boolean;
  /** `basic`, or `ros`: a ROS 2 robot through rosbridge with fixed tools (default `basic`). */
  template?: ProjectTemplate;
  /** Absolute directory of packed kit tarballs, if any. */
  kit?: string;
  force: boolean;
}

/** The companion tools: the server always has one `@LongRunningTool` and one `@Tool`. */
export const DEFAULT_LONG_RUNNING_TOOL = 'patrol';
export const DEFAULT_PLAIN_TOOL = 'get_status';

/** The project templates (`--template`). */
export const PROJECT_TEMPLATES = ['basic', 'ros'] as const;
export type ProjectTemplate = (typeof PROJECT_TEMPLATES)[number];

/** The tools of the `ros` template (fixed: its server is written around Nav2). */
export const ROS_TEMPLATE_TOOLS = Object.freeze({ longRunning: 'navigate_to_pose', plain: 'get_battery' });

export interface ResolveContext {
  cwd: string;
  /** Ask for what the flags leave open (a TTY without `--yes`). */
  prompter?: Prompter;
}

/** Fills the options from flags, then answers (with a prompter) or defaults, and validates them all. */
export async function resolveOptions(args: CreateArgs, context: ResolveContext): Promise<ProjectOptions> {
  const ask = context.prompter;
  const { name, directory } = await resolveNameAndDirectory(args, context);
  const description = await resolveDescription(args, name, ask);
  const transport = await resolveTransport(args, ask);
  const template = resolveTemplate(args);
  if (template === 'ros') {
    return {
      directory,
      name,
      description,
      transport,
      template,
      longRunningTool: ROS_TEMPLATE_TOOLS.longRunning,
      plainTool: ROS_TEMPLATE_TOOLS.plain,
      firstToolLongRunning: true,
      firstToolActuates: true,
      kit: args.kit !== undefined ? resolve(context.cwd, args.kit) : undefined,
      force: args.force,
    };
  }
  const { firstToolLongRunning, firstToolActuates } = await resolveFirstToolKind(args, ask);
  const tool = await resolveFirstToolName(args, firstToolLongRunning, ask);
  const companion = firstToolLongRunning ? DEFAULT_PLAIN_TOOL : DEFAULT_LONG_RUNNING_TOOL;
  if (tool === companion) {
    throw new GeneratorError(
      'GENERATOR_INVALID_NAME',
      '--tool',
      `"${tool}" is the name of the generated ${firstToolLongRunning ? 'plain' : 'long-running'} tool; ` +
        `choose another name for the first tool`,
    );
  }

  return {
    directory,
    name,
    description,
    transport,
    longRunningTool: firstToolLongRunning ? tool : companion,
    plainTool: firstToolLongRunning ? companion : tool,
    firstToolLongRunning,
    firstToolActuates,
    kit: args.kit !== undefined ? resolve(context.cwd, args.kit) : undefined,
    force: args.force,
  };
}

/**
 * The server name and the absolute directory: each defaults to the other (asking for the name
 * first, suggested from the directory); one of them must be given.
 */
async function resolveNameAndDirectory(
  args: CreateArgs,
  context: ResolveContext,
): Promise<{ name: string; directory: string }> {
  const ask = context.prompter;
  let name = args.name !== undefined ? validateServerName(args.name) : undefined;
  let directory = args.directory;

  if (name === undefined && ask) {
    const fallback = suggestServerName(directory ? basename(resolve(context.cwd, directory)) : 'my-robot');
    name = validateServerName(
      await ask.input({ message: 'Server name', default: fallback, validate: validator(validateServerName) }),
    );
  }
  if (directory === undefined) {
    if (name === undefined) {
      throw new GeneratorError(
        'GENERATOR_USAGE',
        '<directory>',
        'missing; say where to create the project, e.g. "create-robot-mcp-server my-nav --yes"',
      );
    }
    directory = name;
  }
  const absolute = resolve(context.cwd, directory);
  name ??= validateServerName(
    basename(absolute),
    `--name (defaults to the directory name; pass --name ${suggestServerName(basename(absolute))})`,
  );
  return { name, directory: absolute };
}

async function resolveDescription(args: CreateArgs, name: string, ask?: Prompter): Promise<string> {
  if (args.description !== undefined) return validateDescription(args.description);
  if (!ask) return defaultDescription(name);
  return validateDescription(
    await ask.input({
      message: 'Description',
      default: defaultDescription(name),
      validate: validator(validateDescription),
    }),
  );
}

async function resolveTransport(args: CreateArgs, ask?: Prompter): Promise<Transport> {
  if (args.transport !== undefined) return validateTransport(args.transport);
  if (!ask) return 'stdio';
  return ask.select<Transport>({
    message: 'Transport of `npm start`',
    choices: TRANSPORTS.map((value) => ({ name: value, value, description: TRANSPORT_HELP[value] })),
    default: 'stdio',
  });
}

/** Whether the first tool is long-running (default yes) and acts on the world (default: as it runs long). */
async function resolveFirstToolKind(
  args: CreateArgs,
  ask?: Prompter,
): Promise<{ firstToolLongRunning: boolean; firstToolActuates: boolean }> {
  const firstToolLongRunning =
    args.longRunning ??
    (ask
      ? await ask.confirm({
          message: 'Is the first tool long-running (runs as a task with progress)?',
          default: true,
        })
      : true);

  const firstToolActuates =
    args.actuates ??
    (ask
      ? await ask.confirm({
          message: 'Does the first tool act on the world (move, grip, switch)? --read-only hides such tools',
          default: firstToolLongRunning,
        })
      : firstToolLongRunning);
  return { firstToolLongRunning, firstToolActuates };
}

async function resolveFirstToolName(
  args: CreateArgs,
  firstToolLongRunning: boolean,
  ask?: Prompter,
): Promise<string> {
  const toolDefault = firstToolLongRunning ? DEFAULT_LONG_RUNNING_TOOL : DEFAULT_PLAIN_TOOL;
  if (args.tool !== undefined) return validateToolName(args.tool);
  if (!ask) return toolDefault;
  return validateToolName(
    await ask.input({
      message: 'First tool name',
      default: toolDefault,
      validate: validator(validateToolName),
    }),
  );
}

const TRANSPORT_HELP: Record<Transport, string> = {
  stdio: 'the client starts the server (Claude Desktop, Claude Code, MCP Inspector)',
  'streamable-http': 'the server listens on MCP_HOST:MCP_PORT at /mcp (systemd, remote clients)',
  sse: 'the older HTTP+SSE transport at /sse, for clients that need it',
};

function defaultDescription(name: string): string {
  return `Robot capability server ${name}`;
}

/** Adapts a throwing validator to the prompt's `true | message` convention. */
function validator(check: (value: string) => unknown): (value: string) => true | string {
  return (value) => {
    try {
      check(value);
      return true;
    } catch (err) {
      return err instanceof GeneratorError ? err.message.replace(/^[^:]+: /, '') : String(err);
    }
  };
}

/** The template; the `ros` one has fixed tools, so the tool flags are refused with it. */
function resolveTemplate(args: CreateArgs): ProjectTemplate {
  const template = args.template ?? 'basic';
  if (!(PROJECT_TEMPLATES as readonly string[]).includes(template)) {
    throw new GeneratorError(
      'GENERATOR_USAGE',
      '--template',
      `"${template}" is not a template; use one of ${PROJECT_TEMPLATES.join(', ')}`,
    );
  }
  if (template === 'ros') {
    const flag =
      args.tool !== undefined
        ? '--tool'
        : args.longRunning !== undefined
          ? '--long-running'
          : args.actuates !== undefined
            ? '--actuates'
            : undefined;
    if (flag) {
      throw new GeneratorError(
        'GENERATOR_USAGE',
        flag,
        'the ros template has fixed tools (navigate_to_pose, get_battery, emergency_stop); drop the flag, ' +
          'and add tools afterwards with npm run kit -- add tool <name>',
      );
    }
  }
  return template as ProjectTemplate;
}
