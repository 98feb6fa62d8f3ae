import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from './source-files.js';
import ts from 'typescript';

// The MCP SDKs are adapted, not patched (issue 30): the kit composes around them through their
// public extension points (a kit-owned Transport wrapping the SDK's, handler registration, the
// serving entries' options). No file of packages/*/src subclasses an SDK class to override its
// methods, redefines a transport's handler properties, or replaces a method on an SDK object.
const PACKAGES = resolve('packages');
const SDK_MODULE = /^@modelcontextprotocol\//;
/** SDK classes whose subclassing means overriding the protocol machinery (error classes are fine). */
const SDK_CORE_CLASS = /^(Server|McpServer|Protocol|Client)$|Transport$/;
const HANDLER_PROPERTIES = new Set(['onmessage', 'onclose', 'onerror', 'send']);

/** The names a file imports from an MCP SDK module. */
function sdkImports(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!SDK_MODULE.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) names.add(el.name.text);
    if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
    if (statement.importClause?.name) names.add(statement.importClause.name.text);
  }
  return names;
}

/** Whether a class overrides a member (`override`) — of an SDK class, when it extends one. */
function overrides(node: ts.ClassLikeDeclaration): boolean {
  return node.members.some((member) =>
    (ts.canHaveModifiers(member) ? ts.getModifiers(member) : undefined)?.some(
      (modifier) => modifier.kind === ts.SyntaxKind.OverrideKeyword,
    ),
  );
}

function propertyName(node: ts.Expression): string | undefined {
  if (ts.isStringLiteralLike(node)) return node.text;
  return undefined;
}

/** What in `text` patches an SDK instead of adapting it, as "line: what" strings. */
export function sdkPatches(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const sdk = sdkImports(source);
  const found: string[] = [];
  const at = (node: ts.Node, what: string): void => {
    found.push(`${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${what}`);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isClassLike(node)) {
      for (const clause of node.heritageClauses ?? []) {
        if (clause.token !== ts.SyntaxKind.ExtendsKeyword) continue;
        for (const type of clause.types) {
          const base = type.expression.getText(source).split('.')[0]!;
          const name = type.expression.getText(source);
          if (sdk.has(base) && (SDK_CORE_CLASS.test(name.split('.').pop()!) || overrides(node)))
            at(type, `extends the SDK's ${name}`);
        }
      }
    }
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText(source);
      const key = node.arguments[1];
      if (
        /^(Object|Reflect)\.defineProperty$/.test(callee) &&
        key &&
        HANDLER_PROPERTIES.has(propertyName(key) ?? '')
      )
        at(node, `redefines ${propertyName(key)} (${callee})`);
    }
    if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
      const target = node.left;
      if (ts.isPropertyAccessExpression(target)) {
        const name = target.name.text;
        if (name === 'send') at(node, `replaces a transport's send (${target.getText(source)} = ...)`);
        if (target.expression.getText(source).includes('.prototype') || name === 'prototype')
          at(node, `patches a prototype (${target.getText(source)} = ...)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the MCP SDKs are adapted, not patched', () => {
  it('no file of packages/*/src extends an SDK class, redefines a transport handler or replaces send', () => {
    const found: string[] = [];
    for (const pkg of readdirSync(PACKAGES)) {
      const src = join(PACKAGES, pkg, 'src');
      if (!statSync(join(PACKAGES, pkg)).isDirectory()) continue;
      let files: string[];
      try {
        files = sourceFiles(src);
      } catch {
        continue;
      }
      for (const file of files)
        for (const patch of sdkPatches(file, readFileSync(file, 'utf8')))
          found.push(`${relative(PACKAGES, file)}:${patch}`);
    }
    expect(found).toEqual([]);
  });

  it('sees each way of patching (the check can fail)', () => {
    const patched = `
      import { Server } from '@modelcontextprotocol/server';
      import * as sdk from '@modelcontextprotocol/sdk/server/index.js';
      import { McpError } from '@modelcontextprotocol/sdk/types.js';
      class ModernServer extends Server {
        protected override _wrapHandler(method: string, handler: unknown) { return handler; }
      }
      class Legacy extends sdk.Server {}
      class Quiet extends McpError { override toString() { return ''; } }
      Object.defineProperty(transport, 'onmessage', { get: () => undefined });
      transport.send = (message) => send(message);
      Server.prototype.connect = () => undefined;
    `;
    expect(sdkPatches('patched.ts', patched)).toEqual([
      expect.stringContaining("extends the SDK's Server"),
      expect.stringContaining("extends the SDK's sdk.Server"),
      expect.stringContaining("extends the SDK's McpError"),
      expect.stringContaining('redefines onmessage'),
      expect.stringContaining("replaces a transport's send"),
      expect.stringContaining('patches a prototype'),
    ]);
    // A kit class of its own, and setting a transport's handlers as the SDK does, are fine.
    const adapted = `
      import { type Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
      import { McpError } from '@modelcontextprotocol/sdk/types.js';
      class TaskNotFound extends McpError {}
      class PipelineTransport implements Transport { send() {} }
      class Other extends Error {}
      inner.onmessage = (message) => this.onmessage?.(message);
    `;
    expect(sdkPatches('adapted.ts', adapted)).toEqual([]);
  });
});
