import { ensureNamedImports } from '../../src/project/imports.js';
import { createEditProject } from '../../src/project/ts-project.js';

function file(text: string) {
  return createEditProject({ inMemory: true }).createSourceFile('/x.ts', text);
}

describe('ensureNamedImports', () => {
  it('adds names to an existing import, in sorted position', () => {
    const sf = file("import { IsInt, Min } from 'class-validator';\n");
    ensureNamedImports(sf, 'class-validator', [{ name: 'IsOptional' }, { name: 'Max' }, { name: 'IsInt' }]);
    expect(sf.getFullText()).toBe("import { IsInt, IsOptional, Max, Min } from 'class-validator';\n");
  });

  it('appends when the existing names are not sorted', () => {
    const sf = file("import { Min, IsInt } from 'class-validator';\n");
    ensureNamedImports(sf, 'class-validator', [{ name: 'Max' }]);
    expect(sf.getFullText()).toBe("import { Min, IsInt, Max } from 'class-validator';\n");
  });

  it('adds a declaration after the last import when the module is not imported', () => {
    const sf = file("import { a } from 'a';\n\nexport const x = 1;\n");
    ensureNamedImports(sf, '@robot-mcp-kit/core', [{ name: 'TaskContext', typeOnly: true }]);
    expect(sf.getFullText()).toBe(
      "import { a } from 'a';\nimport { type TaskContext } from '@robot-mcp-kit/core';\n\nexport const x = 1;\n",
    );
  });

  it('adds a declaration at the top of a file without imports', () => {
    const sf = file('export const x = 1;\n');
    ensureNamedImports(sf, 'm', [{ name: 'y' }]);
    expect(sf.getImportDeclarations().map((d) => d.getText())).toEqual(["import { y } from 'm';"]);
  });

  it('keeps what is there: an alias counts, a type import stays when a type is wanted', () => {
    const sf = file("import { Tool as T, type ToolCallContext } from '@robot-mcp-kit/server';\n");
    ensureNamedImports(sf, '@robot-mcp-kit/server', [
      { name: 'T' },
      { name: 'ToolCallContext', typeOnly: true },
    ]);
    expect(sf.getImportDeclarations()).toHaveLength(1);
    expect(
      sf
        .getImportDeclarations()[0]
        ?.getNamedImports()
        .map((n) => n.getText()),
    ).toEqual(['Tool as T', 'type ToolCallContext']);
  });

  it('upgrades a type-only specifier when the value is needed', () => {
    const sf = file("import { type JSONSchema } from '@robot-mcp-kit/server';\n");
    ensureNamedImports(sf, '@robot-mcp-kit/server', [{ name: 'JSONSchema' }]);
    expect(sf.getFullText()).toBe("import { JSONSchema } from '@robot-mcp-kit/server';\n");
  });

  it('moves a name out of an `import type` declaration when the value is needed', () => {
    const sf = file("import { type Tool } from '@robot-mcp-kit/server';\n");
    ensureNamedImports(sf, '@robot-mcp-kit/server', [{ name: 'Tool' }]);
    const texts = sf.getImportDeclarations().map((d) => d.getText());
    expect(texts).toHaveLength(1);
    expect(texts).toEqual(["import { Tool } from '@robot-mcp-kit/server';"]);
  });

  it('does not add to a namespace import', () => {
    const sf = file("import * as cv from 'class-validator';\n");
    ensureNamedImports(sf, 'class-validator', [{ name: 'IsInt' }]);
    expect(sf.getImportDeclarations()).toHaveLength(2);
  });

  it('does not bind a name twice: one imported from another module stays, the rest are added', () => {
    // a project that imports @JSONSchema from class-validator-jsonschema itself
    const sf = file("import { JSONSchema } from 'class-validator-jsonschema';\n");
    ensureNamedImports(sf, '@robot-mcp-kit/server', [{ name: 'JSONSchema' }, { name: 'Tool' }]);
    expect(sf.getImportDeclarations().map((d) => d.getText())).toEqual([
      "import { JSONSchema } from 'class-validator-jsonschema';",
      "import { Tool } from '@robot-mcp-kit/server';",
    ]);
  });
});
