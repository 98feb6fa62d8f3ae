// The generator is a command (`npm create robot-mcp-server`, see bin.ts); this entry exposes only
// what a script needs to run it or to generate a project, and the name rules it applies.
export { runCreate } from './create.command.js';
export type { CreateIo } from './create.command.js';
export { generateProject } from './project.generator.js';
export type { GeneratedProject } from './project.generator.js';
export type { ProjectOptions } from './options.resolver.js';
export { GeneratorError } from './generator.error.js';
export type { GeneratorErrorCode } from './generator.error.js';
export { validateServerName, validateToolName } from './validation.js';
