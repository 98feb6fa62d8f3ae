import { type OutputSink, parseCreateArgs } from './args.parser.js';
import { GeneratorError } from './generator.error.js';
import { resolveOptions } from './options.resolver.js';
import { generateProject } from './project.generator.js';
import { createInquirerPrompter, isPromptCancelled, type Prompter } from './prompts.js';
import { nextSteps } from './summary.js';
import { TEMPLATES_DIR } from './template.renderer.js';
import { generatorVersion } from './versions.js';

/** The process around the generator: output, working directory, terminal. */
export interface CreateIo extends OutputSink {
  cwd: string;
  /** Whether a person can answer prompts (stdin and stdout are a TTY). */
  interactive: boolean;
  /** Makes the prompter; default @inquirer/prompts. */
  prompter?: () => Promise<Prompter>;
  /** Where the templates are; default the package's `templates/`. */
  templatesDir?: string;
}

/**
 * `create-robot-mcp-server [directory] [flags]`: parses the flags, asks for the rest on a terminal
 * (unless `--yes`), writes the project and prints the next steps. Returns the exit code; user
 * mistakes print one line naming the fix and return 1.
 */
export async function runCreate(argv: readonly string[], io: CreateIo): Promise<number> {
  const version = generatorVersion();
  const parsed = parseCreateArgs(argv, version, io);
  if (parsed.kind === 'exit') return parsed.code;
  const { args } = parsed;
  try {
    const prompter =
      io.interactive && !args.yes ? await (io.prompter ?? createInquirerPrompter)() : undefined;
    const options = await resolveOptions(args, { cwd: io.cwd, prompter });
    const project = generateProject(options, version, io.templatesDir ?? TEMPLATES_DIR);
    io.stdout(nextSteps(options, project, io.cwd));
    return 0;
  } catch (err) {
    if (err instanceof GeneratorError) {
      io.stderr(`create-robot-mcp-server: ${err.message}\n`);
      return 1;
    }
    if (isPromptCancelled(err)) {
      io.stderr('create-robot-mcp-server: cancelled, nothing was written\n');
      return 1;
    }
    throw err;
  }
}
