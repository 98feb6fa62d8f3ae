import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it } from '@jest/globals';

/**
 * The authoring guide's `rover` server and its test, run as written: the TypeScript blocks of
 * docs/authoring.md that name a file (`src/rover.args.ts`, `src/rover.server.ts`,
 * `test/rover.server.test.ts`) are written to a scratch folder and the guide's test file is
 * imported here, so its `it(...)` blocks run as tests of this suite. A guide that no longer
 * compiles, imports something that is gone or asserts what the kit does not do fails here.
 */
const here = dirname(fileURLToPath(import.meta.url));
const guide = readFileSync(join(here, '../../docs/authoring.md'), 'utf8');

/** The ```ts block right after the line that names `file` in backticks. */
function blockOf(file: string): string {
  const named = guide.indexOf('`' + file + '`');
  if (named < 0) throw new Error(`docs/authoring.md no longer names ${file}`);
  const match = /```ts\n([\s\S]*?)```/.exec(guide.slice(named));
  if (!match) throw new Error(`docs/authoring.md has no ts block after ${file}`);
  return match[1]!;
}

const files = ['src/rover.args.ts', 'src/rover.server.ts', 'test/rover.server.test.ts'];
const scratch = join(here, `.guide-${process.pid}`);
for (const file of files) {
  mkdirSync(dirname(join(scratch, file)), { recursive: true });
  writeFileSync(join(scratch, file), blockOf(file));
}
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

it('the guide imports only the authoring surface (/testing in tests) and DTO decorators from class-validator', () => {
  const kitImports = [...guide.matchAll(/from '(@robot-mcp-kit\/[^']+)'/g)].map((m) => m[1]);
  expect(kitImports.length).toBeGreaterThan(0);
  expect(new Set(kitImports)).toEqual(new Set(['@robot-mcp-kit/server', '@robot-mcp-kit/server/testing']));
  // DTO decorators from the author's own class-validator (a peer of the kit)
  expect(guide).toMatch(/^import \{ [^}]+ \} from 'class-validator';$/m);
});

// The guide's own tests register here (top-level await: before Jest collects the tests).
await import(join(scratch, 'test/rover.server.test.ts'));
