import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  type ArrayLiteralExpression,
  type CallExpression,
  Node,
  type SourceFile,
  SyntaxKind,
} from 'ts-morph';
import { CliError } from '../cli.error.js';
import { validateTriggerType } from '../naming.js';
import { ensureNamedImports } from '../project/imports.js';
import { importSpecifier } from '../project/project.locator.js';
import { createEditProject } from '../project/ts-project.js';
import { triggerNames, triggerPluginText, triggerTestText } from './trigger.snippets.js';

export interface AddTriggerOptions {
  /** Project root (has package.json). */
  readonly root: string;
  /** Trigger type, snake_case. */
  readonly type: string;
}

export interface AddTriggerResult {
  readonly type: string;
  readonly variable: string;
  /** The file whose plugin list now holds the plugin (`src/plugins.ts` or `src/main.ts`). */
  readonly registeredIn: string;
  readonly created: readonly string[];
  readonly modified: readonly string[];
}

const PLUGINS_FILE = 'src/plugins.ts';
const MAIN_FILE = 'src/main.ts';

/**
 * Writes `src/triggers/<type>.trigger.ts` (a plugin with validate/evaluate) and its test, and
 * registers the plugin with ts-morph: in the `plugins` array of src/plugins.ts (which main.ts and
 * the tests share) or, in projects without that file, in `runServer(..., { plugins: [...] })` of
 * src/main.ts. Every check runs before any file is written.
 */
export function addTrigger(options: AddTriggerOptions): AddTriggerResult {
  const type = validateTriggerType(options.type);
  const names = triggerNames(type);
  const pluginFile = join(options.root, names.file);
  const testFile = join(options.root, names.testFile);
  refuseExisting(options.root, [names.file, names.testFile]);

  const { target, registeredIn } = registerPlugin(options.root, names.variable);
  ensureNamedImports(target, importSpecifier(target.getFilePath(), pluginFile), [{ name: names.variable }]);

  write(pluginFile, triggerPluginText(names));
  write(
    testFile,
    triggerTestText(
      names,
      importSpecifier(testFile, pluginFile),
      registeredIn === PLUGINS_FILE ? importSpecifier(testFile, join(options.root, PLUGINS_FILE)) : undefined,
    ),
  );
  target.saveSync();
  return {
    type,
    variable: names.variable,
    registeredIn,
    created: [names.file, names.testFile],
    modified: [registeredIn],
  };
}

/** Refuses to overwrite any of the files (relative to the root) the command would create. */
function refuseExisting(root: string, files: readonly string[]): void {
  for (const relative of files) {
    if (existsSync(join(root, relative))) {
      throw new CliError(
        'CLI_CONFLICT',
        relative,
        `already exists; remove it or choose another trigger type`,
      );
    }
  }
}

/**
 * Adds the plugin variable to the `plugins` array of src/plugins.ts or, without that file, to the
 * `runServer(...)` options of src/main.ts; in memory only (the caller saves `target`).
 */
function registerPlugin(root: string, variable: string): { target: SourceFile; registeredIn: string } {
  const project = createEditProject();
  const pluginsPath = join(root, PLUGINS_FILE);
  const mainPath = join(root, MAIN_FILE);
  if (existsSync(pluginsPath)) {
    const target = project.addSourceFileAtPath(pluginsPath);
    const list = pluginsArray(target);
    if (!list) {
      throw new CliError(
        'CLI_CANNOT_EDIT',
        PLUGINS_FILE,
        'has no "export const plugins = [...]" array; restore it, or add the plugin to your list by hand',
      );
    }
    addElement(list, variable, PLUGINS_FILE);
    return { target, registeredIn: PLUGINS_FILE };
  }
  if (existsSync(mainPath)) {
    const target = project.addSourceFileAtPath(mainPath);
    addToRunServer(target, variable);
    return { target, registeredIn: MAIN_FILE };
  }
  throw new CliError(
    'CLI_NOT_A_PROJECT',
    root,
    `has neither ${PLUGINS_FILE} nor ${MAIN_FILE}; run the command in a project made by create-robot-mcp-server`,
  );
}

/** The array literal of `export const plugins ... = [...]`. */
function pluginsArray(sourceFile: SourceFile): ArrayLiteralExpression | undefined {
  const initializer = sourceFile.getVariableDeclaration('plugins')?.getInitializer();
  if (!initializer) return undefined;
  const unwrapped =
    Node.isAsExpression(initializer) || Node.isSatisfiesExpression(initializer)
      ? initializer.getExpression()
      : initializer;
  return Node.isArrayLiteralExpression(unwrapped) ? unwrapped : undefined;
}

function addElement(list: ArrayLiteralExpression, variable: string, file: string): void {
  if (list.getElements().some((element) => element.getText() === variable)) {
    throw new CliError('CLI_CONFLICT', file, `already lists ${variable}`);
  }
  list.addElement(variable);
}

/** Adds the plugin to the options of the `runServer(...)` call of main.ts. */
function addToRunServer(sourceFile: SourceFile, variable: string): void {
  const call = sourceFile
    .getDescendantsOfKind(SyntaxKind.CallExpression)
    .find((expression: CallExpression) => expression.getExpression().getText() === 'runServer');
  if (!call) {
    throw new CliError(
      'CLI_CANNOT_EDIT',
      MAIN_FILE,
      `has no runServer(...) call; register ${variable} in bootstrap(..., { plugins: [...] }) by hand`,
    );
  }
  const args = call.getArguments();
  if (args.length < 2) {
    call.addArgument(`{ plugins: [${variable}] }`);
    return;
  }
  const options = args[1];
  if (!options || !Node.isObjectLiteralExpression(options)) {
    throw new CliError(
      'CLI_CANNOT_EDIT',
      MAIN_FILE,
      `the options of runServer(...) are not an object literal; add ${variable} to its plugins by hand`,
    );
  }
  const property = options.getProperty('plugins');
  if (!property) {
    options.addPropertyAssignment({ name: 'plugins', initializer: `[${variable}]` });
    return;
  }
  const initializer = Node.isPropertyAssignment(property) ? property.getInitializer() : undefined;
  if (!initializer || !Node.isArrayLiteralExpression(initializer)) {
    throw new CliError(
      'CLI_CANNOT_EDIT',
      MAIN_FILE,
      `the plugins of runServer(...) are not an array literal; add ${variable} to them by hand`,
    );
  }
  addElement(initializer, variable, MAIN_FILE);
}

function write(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
