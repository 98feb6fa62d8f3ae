import { join } from 'node:path';
import { toCamelCase, toPascalCase } from '@robot-mcp-kit/core/rules';
import { type ProjectOptions } from './options.resolver.js';
import { buildPackageJson, kitSpecs } from './package-json.builder.js';
import { assertTargetUsable, writeProject } from './project.writer.js';
import {
  byPath,
  type RenderedFile,
  renderTemplates,
  ROS_TEMPLATES_DIR,
  TEMPLATES_DIR,
  type TemplateVars,
} from './template.renderer.js';
import { serverClassName } from './validation.js';

/** What {@link generateProject} wrote. */
export interface GeneratedProject {
  readonly directory: string;
  /** Relative paths of the files written, sorted. */
  readonly files: readonly string[];
}

/** Which generated tools act on the world: the first tool as asked, the companion by its kind. */
export function actuatingTools(options: ProjectOptions): { lr: boolean; plain: boolean } {
  return options.firstToolLongRunning
    ? { lr: options.firstToolActuates, plain: false }
    : { lr: true, plain: options.firstToolActuates };
}

/** The decorator lines saying whether a tool acts (`actuates: true`) or only reads. */
function actingLines(actuates: boolean): string {
  return actuates
    ? '    // Acts on the world: annotated destructive, and hidden when the server runs with --read-only.\n' +
        '    actuates: true,'
    : '    // Only reads or computes: offered under --read-only too.\n' +
        '    annotations: { readOnlyHint: true },';
}

/** The placeholder values of the templates for these options. */
export function templateVars(options: ProjectOptions, kitVersion: string): TemplateVars {
  const mainPath = join(options.directory, 'dist', 'main.js');
  const acting = actuatingTools(options);
  const tools = [
    { name: options.longRunningTool, actuates: acting.lr },
    { name: options.plainTool, actuates: acting.plain },
  ];
  return {
    name: options.name,
    description: options.description,
    descriptionLiteral: tsString(options.description),
    unitDescription: options.description.replace(/%/g, '%%'),
    className: serverClassName(options.name),
    kitVersion,
    transport: options.transport,
    serviceTransport: options.transport === 'stdio' ? 'streamable-http' : options.transport,
    lrTool: options.longRunningTool,
    lrMethod: toCamelCase(options.longRunningTool),
    lrDto: `${toPascalCase(options.longRunningTool)}Args`,
    plainTool: options.plainTool,
    plainMethod: toCamelCase(options.plainTool),
    plainDto: `${toPascalCase(options.plainTool)}Args`,
    projectDir: options.directory,
    mainPath,
    mainPathJson: JSON.stringify(mainPath),
    mainPathShell: shellQuote(mainPath),
    lrActing: actingLines(acting.lr),
    plainActing: actingLines(acting.plain),
    actuatingToolsJson: tsList(tools.filter((t) => t.actuates).map((t) => t.name)),
    readOnlyToolsJson: tsList(tools.filter((t) => !t.actuates).map((t) => t.name)),
  };
}

/** Every file of the project: the rendered templates plus package.json. */
export function renderProject(
  options: ProjectOptions,
  kitVersion: string,
  templatesDir = TEMPLATES_DIR,
): RenderedFile[] {
  const kit = kitSpecs(kitVersion, options.kit, options.template === 'ros');
  const vars = templateVars(options, kitVersion);
  let files = renderTemplates(templatesDir, vars);
  if (options.template === 'ros') {
    const overlay = renderTemplates(ROS_TEMPLATES_DIR, vars);
    const replaced = new Set(overlay.map((f) => f.path));
    files = [...files.filter((f) => !replaced.has(f.path)), ...overlay];
  }
  const pkg: RenderedFile = {
    path: 'package.json',
    content: `${JSON.stringify(buildPackageJson(options, kit), null, 2)}\n`,
  };
  return [...files, pkg].sort(byPath);
}

/** Checks the target, renders and writes the project. */
export function generateProject(
  options: ProjectOptions,
  kitVersion: string,
  templatesDir = TEMPLATES_DIR,
): GeneratedProject {
  assertTargetUsable(options.directory, options.force);
  const files = renderProject(options, kitVersion, templatesDir);
  return { directory: options.directory, files: writeProject(options.directory, files) };
}

/** A TypeScript array literal of single-quoted strings: `['patrol', 'grasp']`. */
function tsList(values: readonly string[]): string {
  return `[${values.map(tsString).join(', ')}]`;
}

/** A TypeScript single-quoted string literal. */
export function tsString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Quotes a path for a POSIX shell when it needs it. */
export function shellQuote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}
