import { type FormatCodeSettings, IndentationText, type Node, Project, QuoteKind } from 'ts-morph';

/** A ts-morph project that edits files in the kit's style (2 spaces, single quotes, trailing commas). */
export function createEditProject(options: { inMemory?: boolean } = {}): Project {
  return new Project({
    useInMemoryFileSystem: options.inMemory ?? false,
    skipAddingFilesFromTsConfig: true,
    skipFileDependencyResolution: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      quoteKind: QuoteKind.Single,
      useTrailingCommas: true,
    },
  });
}

const FORMAT: FormatCodeSettings = { indentSize: 2, tabSize: 2, convertTabsToSpaces: true };

/** Re-indents one inserted node (not the rest of the user's file). */
export function formatNode(node: Node): void {
  node.formatText(FORMAT);
}
