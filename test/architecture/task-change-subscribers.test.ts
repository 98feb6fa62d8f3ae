import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from './source-files.js';
import ts from 'typescript';

// One task projection (issue 30): the server's surfaces read a task and follow its changes through
// `TaskProjection` (packages/server/src/task-views/task-projection.ts), the one subscriber to a
// TaskManager's change channel. Besides it, only what must see every change first-hand subscribes:
// the store bridge (it writes every change to the shared store), the actuator leases (they release a
// lease when its task ends) and run-server's drain (it waits for the last task to end).
// The projection is created once per app, by bootstrap, and handed to its readers (no lookup).
const SERVER_SRC = resolve('packages/server/src');

const ALLOWED = [
  'task-views/task-projection.ts',
  'store/task-store.bridge.ts',
  'store/actuator-leases.ts',
  'bootstrap/run-server.ts',
];

/** The `x.onChange(...)` calls of `text` whose receiver is a TaskManager (`taskManager`, `this.manager`). */
export function taskManagerSubscriptions(text: string): string[] {
  const source = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'onChange' &&
      /(^|\.)(taskManager|manager)$/i.test(node.expression.expression.getText(source))
    ) {
      found.push(node.expression.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('task change subscribers', () => {
  it("only the task projection (and the bridge, the leases, run-server's drain, the event log) subscribe to a TaskManager's changes", () => {
    const subscribers = sourceFiles(SERVER_SRC)
      .filter((file) => taskManagerSubscriptions(readFileSync(file, 'utf8')).length > 0)
      .map((file) => relative(SERVER_SRC, file).split('\\').join('/'))
      .sort();
    expect(subscribers.filter((file) => !ALLOWED.includes(file))).toEqual([]);
    expect(subscribers).toContain('task-views/task-projection.ts');
  });

  it('creates the task projection in one place, where the app is composed (one per app, handed on)', () => {
    const creators = sourceFiles(SERVER_SRC)
      .filter((file) => /\bnew TaskProjection\b|\bTaskProjection\.of\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SERVER_SRC, file).split('\\').join('/'));
    expect(creators).toEqual(['bootstrap/bootstrap.ts']);
  });

  it('sees a subscription however the manager is reached (the check can fail)', () => {
    const text = [
      'taskManager.onChange(() => undefined);',
      'this.taskManager.onChange(() => undefined);',
      'deps.taskManager.onChange((c) => c);',
      'ctx.taskManager.onChange(listener);',
      'projection.onChange(listener);',
      'emitter.on("change", listener);',
    ].join('\n');
    expect(taskManagerSubscriptions(text)).toEqual([
      'taskManager.onChange',
      'this.taskManager.onChange',
      'deps.taskManager.onChange',
      'ctx.taskManager.onChange',
    ]);
  });
});
