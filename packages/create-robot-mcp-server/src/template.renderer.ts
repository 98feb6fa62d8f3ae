import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { GeneratorError } from './generator.error.js';

/** One file to write, with its path relative to the project (forward slashes). */
export interface RenderedFile {
  readonly path: string;
  readonly content: string;
}

/** The values `{{name}}` placeholders are replaced with. */
export type TemplateVars = Readonly<Record<string, string>>;

/** The templates shipped with this package (`templates/`, next to `dist/`). */
export const TEMPLATES_DIR = fileURLToPath(new URL('../templates/', import.meta.url));

/** The `ros` template's files (`templates-ros/`), rendered over the basic ones. */
export const ROS_TEMPLATES_DIR = fileURLToPath(new URL('../templates-ros/', import.meta.url));

const TEMPLATE_SUFFIX = '.tpl';
const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9]*)\}\}/g;

/**
 * Renders every `*.tpl` file under `dir`:
 * - the path loses `.tpl`, `__name__` in it becomes `vars.name`, and a leading `_` of the file name
 *   becomes `.` (`_gitignore` → `.gitignore`: npm would drop a real `.gitignore` from the package);
 * - `{{key}}` in the content becomes `vars[key]`; an unknown key is an error (a template bug).
 * Files come back sorted by path.
 */
export function renderTemplates(dir: string, vars: TemplateVars): RenderedFile[] {
  return listTemplates(dir)
    .map((relative) => ({
      path: renderPath(relative, vars),
      content: renderString(readFileSync(join(dir, relative), 'utf8'), vars, relative),
    }))
    .sort(byPath);
}

/** Replaces the `{{key}}` placeholders of one text. */
export function renderString(text: string, vars: TemplateVars, where = 'template'): string {
  return text.replace(PLACEHOLDER, (_match, key: string) => {
    const value = vars[key];
    if (value === undefined) {
      throw new GeneratorError(
        'GENERATOR_TEMPLATE',
        where,
        `uses {{${key}}}, which has no value; add "${key}" to the template variables or fix the template`,
      );
    }
    return value;
  });
}

/** `src/__name__.server.ts.tpl` → `src/my-nav.server.ts`; `_gitignore.tpl` → `.gitignore`. */
export function renderPath(relative: string, vars: TemplateVars): string {
  const segments = relative.slice(0, -TEMPLATE_SUFFIX.length).split('/');
  const file = segments.pop() ?? '';
  const name = vars.name ?? '';
  const withName = (segment: string): string => segment.split('__name__').join(name);
  return [...segments.map(withName), withName(file).replace(/^_/, '.')].join('/');
}

/** Relative paths (forward slashes) of the `*.tpl` files under `dir`. */
function listTemplates(dir: string, prefix = ''): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) found.push(...listTemplates(dir, relative));
    else if (entry.name.endsWith(TEMPLATE_SUFFIX)) found.push(relative);
  }
  return found;
}

/** Orders files by path, code point by code point (the same on every machine). */
export function byPath(a: { path: string }, b: { path: string }): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
