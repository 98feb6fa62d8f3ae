import { type ImportDeclaration, type SourceFile } from 'ts-morph';

/** One name to import: `{ name: 'TaskContext', typeOnly: true }` → `import { type TaskContext }`. */
export interface NamedImport {
  readonly name: string;
  readonly typeOnly?: boolean;
}

/**
 * Makes `sourceFile` import each name from `moduleSpecifier`, adding to an existing import of that
 * module when there is one (keeping its names sorted if they were), or adding a declaration after
 * the other imports. A type-only import is upgraded when a value import is needed. A name that
 * another module's import already binds is left alone.
 */
export function ensureNamedImports(
  sourceFile: SourceFile,
  moduleSpecifier: string,
  names: readonly NamedImport[],
): void {
  for (const wanted of names) ensureNamedImport(sourceFile, moduleSpecifier, wanted);
}

/** Whether another module's import already binds `name` (a second binding would not compile). */
function boundElsewhere(sourceFile: SourceFile, moduleSpecifier: string, name: string): boolean {
  return sourceFile
    .getImportDeclarations()
    .some(
      (declaration) =>
        declaration.getModuleSpecifierValue() !== moduleSpecifier &&
        declaration.getNamedImports().some((specifier) => localName(specifier) === name),
    );
}

function ensureNamedImport(sourceFile: SourceFile, moduleSpecifier: string, wanted: NamedImport): void {
  // e.g. `JSONSchema` from 'class-validator-jsonschema' where the snippet imports it from the kit
  if (boundElsewhere(sourceFile, moduleSpecifier, wanted.name)) return;
  const declarations = sourceFile
    .getImportDeclarations()
    .filter((declaration) => declaration.getModuleSpecifierValue() === moduleSpecifier);
  for (const declaration of declarations) {
    const existing = declaration.getNamedImports().find((specifier) => localName(specifier) === wanted.name);
    if (!existing) continue;
    if (!wanted.typeOnly) {
      if (existing.isTypeOnly()) existing.setIsTypeOnly(false);
      if (declaration.isTypeOnly()) {
        existing.remove();
        if (declaration.getNamedImports().length === 0) declaration.remove();
        ensureNamedImport(sourceFile, moduleSpecifier, wanted);
      }
    }
    return;
  }
  const target = declarations.find((d) => !d.isTypeOnly() && d.getNamespaceImport() === undefined);
  if (target) {
    target.insertNamedImport(sortedIndex(target, wanted.name), {
      name: wanted.name,
      isTypeOnly: wanted.typeOnly ?? false,
    });
    return;
  }
  const imports = sourceFile.getImportDeclarations();
  const index = imports.length ? (imports[imports.length - 1] as ImportDeclaration).getChildIndex() + 1 : 0;
  sourceFile.insertImportDeclaration(index, {
    moduleSpecifier,
    namedImports: [{ name: wanted.name, isTypeOnly: wanted.typeOnly ?? false }],
  });
}

function localName(specifier: {
  getAliasNode(): { getText(): string } | undefined;
  getName(): string;
}): string {
  return specifier.getAliasNode()?.getText() ?? specifier.getName();
}

/** Where `name` goes so the names stay sorted; the end when they are not sorted. */
function sortedIndex(declaration: ImportDeclaration, name: string): number {
  const names = declaration.getNamedImports().map((specifier) => specifier.getName());
  const compare = (a: string, b: string): number => a.localeCompare(b, 'en', { sensitivity: 'base' });
  const sorted = names.every((value, i) => i === 0 || compare(names[i - 1] as string, value) <= 0);
  if (!sorted) return names.length;
  const index = names.findIndex((value) => compare(value, name) > 0);
  return index === -1 ? names.length : index;
}
