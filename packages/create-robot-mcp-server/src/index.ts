export { runCreate } from './create.command.js';
export type { CreateIo } from './create.command.js';
export { buildCreateProgram, parseCreateArgs, COMMAND_NAME } from './args.parser.js';
export type { CreateArgs, OutputSink, ParseOutcome } from './args.parser.js';
export { resolveOptions, DEFAULT_LONG_RUNNING_TOOL, DEFAULT_PLAIN_TOOL } from './options.resolver.js';
export type { ProjectOptions, ResolveContext } from './options.resolver.js';
export { createInquirerPrompter, isPromptCancelled } from './prompts.js';
export type { Prompter } from './prompts.js';
export { generateProject, renderProject, templateVars } from './project.generator.js';
export type { GeneratedProject } from './project.generator.js';
export { renderTemplates, renderString, renderPath, TEMPLATES_DIR } from './template.renderer.js';
export type { RenderedFile, TemplateVars } from './template.renderer.js';
export { assertTargetUsable, writeProject } from './project.writer.js';
export { buildPackageJson, kitSpecs } from './package-json.builder.js';
export type { KitSpecs } from './package-json.builder.js';
export { nextSteps } from './summary.js';
export { GeneratorError } from './generator.error.js';
export type { GeneratorErrorCode } from './generator.error.js';
export {
  validateServerName,
  validateToolName,
  validateTransport,
  validateDescription,
  serverClassName,
  suggestServerName,
  TRANSPORTS,
} from './validation.js';
export type { Transport } from './validation.js';
export { THIRD_PARTY_VERSIONS, KIT_PACKAGES, generatorVersion } from './versions.js';
