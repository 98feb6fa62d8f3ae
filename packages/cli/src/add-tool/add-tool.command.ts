import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type ClassDeclaration, Node, type SourceFile } from 'ts-morph';
import { toCamelCase, toKebabCase, toPascalCase, toSnakeCase } from '@robot-mcp-kit/core/rules';
import { CliError } from '../cli.error.js';
import { validateToolName } from '../naming.js';
import { ensureNamedImports } from '../project/imports.js';
import { importSpecifier, locateServerClass } from '../project/project.locator.js';
import { createEditProject, formatNode } from '../project/ts-project.js';
import { harnessPathFor, harnessText } from './harness.snippet.js';
import { toolTestText } from './tool-test.snippet.js';
import { type ToolNames, toolSnippet } from './tool.snippets.js';

export interface AddToolOptions {
  /** Project root (has package.json). */
  readonly root: string;
  /** Tool name, snake_case. */
  readonly name: string;
  readonly longRunning: boolean;
  /**
   * Whether the tool acts on the world (moves, grips, switches): `actuates: true`, so `--read-only`
   * hides it. Default: true for a long-running tool, false for a plain one.
   */
  readonly actuates?: boolean;
  /** The `*.server.ts` file, when the project has several servers. */
  readonly server?: string;
}

/** What `add tool` changed, as project-relative paths. */
export interface AddToolResult {
  readonly tool: string;
  /** Whether it was scaffolded with `actuates: true`. */
  readonly actuates: boolean;
  readonly serverFile: string;
  readonly className: string;
  readonly created: readonly string[];
  readonly modified: readonly string[];
}

/**
 * Adds a tool to the project's `@CapabilityServer` class with ts-morph: a DTO class before the
 * server class, a decorated method at the end of it, the imports they need, and a test under
 * test/ (plus the test harness if the project has none). Every conflict is checked before any
 * file is written.
 */
export function addTool(options: AddToolOptions): AddToolResult {
  const tool = validateToolName(options.name);
  const names: ToolNames = { tool, method: toCamelCase(tool), dto: `${toPascalCase(tool)}Args` };
  const project = createEditProject();
  const { sourceFile, serverClass, relativePath } = locateServerClass(project, options.root, options.server);
  const className = serverClass.getName();
  if (!className) {
    throw new CliError(
      'CLI_CANNOT_EDIT',
      relativePath,
      'the @CapabilityServer class has no name; name it, then run the command again',
    );
  }
  assertNoConflict(sourceFile, serverClass, names, relativePath);

  const testPath = `test/${toKebabCase(tool)}.test.ts`;
  if (existsSync(join(options.root, testPath))) {
    throw new CliError('CLI_CONFLICT', testPath, 'already exists; remove it or choose another tool name');
  }

  const actuates = options.actuates ?? options.longRunning;
  const snippet = toolSnippet(names, options.longRunning, actuates);
  const dto = sourceFile.insertClass(serverClass.getChildIndex(), snippet.dto);
  formatNode(dto);
  const method = serverClass.addMethod(snippet.method);
  formatNode(method);
  for (const [moduleSpecifier, imports] of Object.entries(snippet.imports)) {
    ensureNamedImports(sourceFile, moduleSpecifier, imports);
  }

  const created: string[] = [];
  const harnessPath = harnessPathFor(options.root, className);
  const harnessFile = join(options.root, harnessPath);
  if (!existsSync(harnessFile)) {
    const pluginsFile = join(options.root, 'src', 'plugins.ts');
    const text = harnessText(
      className,
      importSpecifier(harnessFile, sourceFile.getFilePath()),
      existsSync(pluginsFile) ? importSpecifier(harnessFile, pluginsFile) : undefined,
    );
    write(harnessFile, text);
    created.push(harnessPath);
  }
  const testFile = join(options.root, testPath);
  sourceFile.saveSync();
  write(testFile, toolTestText(names, options.longRunning, importSpecifier(testFile, harnessFile), actuates));
  created.push(testPath);
  return { tool, actuates, serverFile: relativePath, className, created, modified: [relativePath] };
}

/** Names of the tools a class already has (decorator `name`, else the method name in snake_case). */
export function existingToolNames(serverClass: ClassDeclaration): string[] {
  const names: string[] = [];
  for (const method of serverClass.getMethods()) {
    const decorator = method.getDecorator('Tool') ?? method.getDecorator('LongRunningTool');
    if (!decorator) continue;
    const [arg] = decorator.getArguments();
    let name = toSnakeCase(method.getName());
    if (arg && Node.isObjectLiteralExpression(arg)) {
      const property = arg.getProperty('name');
      const initializer =
        property && Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
      if (initializer && Node.isStringLiteral(initializer)) name = initializer.getLiteralValue();
    }
    names.push(name);
  }
  return names;
}

function assertNoConflict(
  sourceFile: SourceFile,
  serverClass: ClassDeclaration,
  names: ToolNames,
  file: string,
): void {
  if (existingToolNames(serverClass).includes(names.tool)) {
    throw new CliError(
      'CLI_CONFLICT',
      names.tool,
      `${serverClass.getName()} in ${file} already has this tool; choose another name`,
    );
  }
  if (serverClass.getMember(names.method)) {
    throw new CliError(
      'CLI_CONFLICT',
      names.tool,
      `${serverClass.getName()} in ${file} already has a member "${names.method}"; choose another tool name`,
    );
  }
  const taken = [
    ...sourceFile.getClasses(),
    ...sourceFile.getInterfaces(),
    ...sourceFile.getTypeAliases(),
    ...sourceFile.getFunctions(),
    ...sourceFile.getEnums(),
  ].some((declaration) => declaration.getName() === names.dto);
  if (taken || sourceFile.getVariableDeclaration(names.dto) || importsName(sourceFile, names.dto)) {
    throw new CliError(
      'CLI_CONFLICT',
      names.tool,
      `${file} already declares "${names.dto}"; choose another tool name`,
    );
  }
}

function importsName(sourceFile: SourceFile, name: string): boolean {
  return sourceFile
    .getImportDeclarations()
    .some((declaration) =>
      declaration
        .getNamedImports()
        .some((specifier) => (specifier.getAliasNode()?.getText() ?? specifier.getName()) === name),
    );
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
