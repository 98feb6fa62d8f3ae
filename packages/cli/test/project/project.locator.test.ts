import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliError } from '../../src/cli.error.js';
import {
  findProjectRoot,
  importSpecifier,
  listServerFiles,
  locateServerClass,
} from '../../src/project/project.locator.js';
import { createEditProject } from '../../src/project/ts-project.js';

const SERVER = (name: string) =>
  `import { CapabilityServer } from '@robot-mcp-kit/server';\n@CapabilityServer({ name: '${name}', version: '1' })\nexport class ${name}Server {}\n`;

describe('project locator', () => {
  let root: string;

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'locate-'));
    writeFileSync(join(root, 'package.json'), '{}');
    mkdirSync(join(root, 'src', 'nested'), { recursive: true });
  });

  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('finds the project root upwards', () => {
    expect(findProjectRoot(join(root, 'src', 'nested'))).toBe(root);
  });

  it('says how to fix running outside a project', () => {
    expect(() => findProjectRoot('/')).toThrow(/no package\.json found upwards.*--project <dir>/);
  });

  it('finds the one capability server class under src/', () => {
    writeFileSync(join(root, 'src', 'nested', 'arm.server.ts'), SERVER('Arm'));
    writeFileSync(join(root, 'src', 'other.ts'), SERVER('NotScanned'));
    const found = locateServerClass(createEditProject(), root);
    expect(found.serverClass.getName()).toBe('ArmServer');
    expect(found.relativePath).toBe('src/nested/arm.server.ts');
  });

  it('asks for --server when there are several, and uses it', () => {
    writeFileSync(join(root, 'src', 'a.server.ts'), SERVER('A'));
    writeFileSync(join(root, 'src', 'b.server.ts'), SERVER('B'));
    expect(() => locateServerClass(createEditProject(), root)).toThrow(
      '--server: several capability servers found (src/a.server.ts (AServer), src/b.server.ts (BServer))',
    );
    expect(locateServerClass(createEditProject(), root, 'src/b.server.ts').serverClass.getName()).toBe(
      'BServer',
    );
  });

  it('explains a missing server class or file', () => {
    writeFileSync(join(root, 'src', 'a.server.ts'), 'export class Plain {}\n');
    expect(() => locateServerClass(createEditProject(), root)).toThrow(CliError);
    expect(() => locateServerClass(createEditProject(), root)).toThrow(
      'has no class decorated with @CapabilityServer',
    );
    expect(() => locateServerClass(createEditProject(), root, 'src/nope.server.ts')).toThrow(
      '--server: src/nope.server.ts does not exist',
    );
  });

  it('lists server files, skipping node_modules', () => {
    mkdirSync(join(root, 'src', 'node_modules'));
    writeFileSync(join(root, 'src', 'node_modules', 'x.server.ts'), '');
    writeFileSync(join(root, 'src', 'z.server.ts'), '');
    expect(listServerFiles(join(root, 'src'))).toEqual([join(root, 'src', 'z.server.ts')]);
    expect(listServerFiles(join(root, 'missing'))).toEqual([]);
  });

  it('writes NodeNext import specifiers', () => {
    expect(importSpecifier('/p/test/a.test.ts', '/p/test/support/harness.ts')).toBe('./support/harness.js');
    expect(importSpecifier('/p/test/support/harness.ts', '/p/src/x.server.ts')).toBe('../../src/x.server.js');
  });
});
