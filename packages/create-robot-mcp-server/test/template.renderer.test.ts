import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GeneratorError } from '../src/generator.error.js';
import { renderPath, renderString, renderTemplates } from '../src/template.renderer.js';

describe('renderString', () => {
  it('replaces every placeholder and leaves other braces alone', () => {
    expect(renderString('{{a}}-{{b}} {"x": {"y": 1}} {{a}}', { a: '1', b: '2' })).toBe(
      '1-2 {"x": {"y": 1}} 1',
    );
  });

  it('names the template and the key of a placeholder without a value', () => {
    try {
      renderString('hello {{who}}', {}, 'src/x.ts.tpl');
      throw new Error('expected an error');
    } catch (err) {
      expect(err).toBeInstanceOf(GeneratorError);
      expect((err as GeneratorError).code).toBe('GENERATOR_TEMPLATE');
      expect((err as GeneratorError).message).toContain('src/x.ts.tpl: uses {{who}}');
    }
  });
});

describe('renderPath', () => {
  it('drops .tpl, substitutes __name__ and turns a leading _ into a dot', () => {
    const vars = { name: 'my-nav' };
    expect(renderPath('src/__name__.server.ts.tpl', vars)).toBe('src/my-nav.server.ts');
    expect(renderPath('_gitignore.tpl', vars)).toBe('.gitignore');
    expect(renderPath('_env.example.tpl', vars)).toBe('.env.example');
    expect(renderPath('deploy/__name__.service.tpl', vars)).toBe('deploy/my-nav.service');
    expect(renderPath('__name__/_x.tpl', vars)).toBe('my-nav/.x');
  });
});

describe('renderTemplates', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tpl-'));
    mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
    writeFileSync(join(dir, 'src', 'deep', '__name__.ts.tpl'), 'export const name = "{{name}}";\n');
    writeFileSync(join(dir, '_gitignore.tpl'), 'dist/\n');
    writeFileSync(join(dir, 'notes.txt'), 'not a template');
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renders only *.tpl files, sorted by path', () => {
    expect(renderTemplates(dir, { name: 'arm' })).toEqual([
      { path: '.gitignore', content: 'dist/\n' },
      { path: 'src/deep/arm.ts', content: 'export const name = "arm";\n' },
    ]);
  });
});
