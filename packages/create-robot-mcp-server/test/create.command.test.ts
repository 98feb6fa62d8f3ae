import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CreateIo, runCreate } from '../src/create.command.js';
import { type Prompter } from '../src/prompts.js';

describe('runCreate', () => {
  let cwd: string;
  let out: { stdout: string; stderr: string };

  const io = (overrides: Partial<CreateIo> = {}): CreateIo => ({
    stdout: (text) => void (out.stdout += text),
    stderr: (text) => void (out.stderr += text),
    cwd,
    interactive: false,
    ...overrides,
  });

  beforeEach(() => {
    cwd = mkdtempSync(join(tmpdir(), 'create-'));
    out = { stdout: '', stderr: '' };
  });

  afterEach(() => rmSync(cwd, { recursive: true, force: true }));

  it('generates non-interactively and prints the next steps', async () => {
    expect(await runCreate(['my-nav', '--yes', '--tool', 'go_to'], io())).toBe(0);
    expect(existsSync(join(cwd, 'my-nav', 'src', 'my-nav.server.ts'))).toBe(true);
    expect(readFileSync(join(cwd, 'my-nav', 'src', 'my-nav.server.ts'), 'utf8')).toContain('async goTo(');
    expect(out.stdout).toContain(`Created my-nav in ${join(cwd, 'my-nav')} (13 files)`);
    expect(out.stdout).toMatch(/cd my-nav\n {2}npm install\n {2}npm test/);
    expect(out.stdout).toContain('npm run kit -- add tool scan_room --long-running --actuates');
    expect(out.stdout).not.toMatch(/npx robot-mcp-kit/);
    expect(out.stderr).toBe('');
  });

  it('does not prompt without a terminal even without --yes', async () => {
    let made = 0;
    const prompter = async (): Promise<Prompter> => {
      made += 1;
      throw new Error('no prompts expected');
    };
    expect(await runCreate(['bot'], io({ prompter }))).toBe(0);
    expect(made).toBe(0);
  });

  it('asks on a terminal', async () => {
    const asked: string[] = [];
    const prompter: Prompter = {
      input: async (q) => {
        asked.push(q.message);
        return q.message === 'Server name' ? 'arm' : (q.default ?? '');
      },
      select: async <T extends string>(q: { message: string; default?: T }) => {
        asked.push(q.message);
        return q.default as T;
      },
      confirm: async (q) => {
        asked.push(q.message);
        return false;
      },
    };
    expect(await runCreate([], io({ interactive: true, prompter: async () => prompter }))).toBe(0);
    expect(asked).toHaveLength(6);
    expect(asked).toContain(
      'Does the first tool act on the world (move, grip, switch)? --read-only hides such tools',
    );
    const server = readFileSync(join(cwd, 'arm', 'src', 'arm.server.ts'), 'utf8');
    expect(server).toContain('async patrol(');
    expect(server).toContain('getStatus(');
  });

  it('stops with exit 1 and writes nothing when the prompt is cancelled', async () => {
    const cancelled = Object.assign(new Error('User force closed the prompt'), { name: 'ExitPromptError' });
    const prompter: Prompter = {
      input: async () => Promise.reject(cancelled),
      select: async () => Promise.reject(cancelled),
      confirm: async () => Promise.reject(cancelled),
    };
    expect(await runCreate([], io({ interactive: true, prompter: async () => prompter }))).toBe(1);
    expect(out.stderr).toBe('create-robot-mcp-server: cancelled, nothing was written\n');
  });

  it('reports a user mistake in one line with its fix, exit 1', async () => {
    expect(await runCreate(['Bad Name', '--yes'], io())).toBe(1);
    expect(out.stderr).toMatch(
      /^create-robot-mcp-server: --name .*pass --name bad-name\): "Bad Name" is not a valid server name/,
    );
    expect(out.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses a non-empty directory and leaves it alone', async () => {
    writeFileSync(join(cwd, 'keep.txt'), 'mine');
    expect(await runCreate(['.', '--name', 'here', '--yes'], io())).toBe(1);
    expect(out.stderr).toContain('is not empty (keep.txt); choose a new directory, or pass --force');
    expect(existsSync(join(cwd, 'package.json'))).toBe(false);
    expect(await runCreate(['.', '--name', 'here', '--yes', '--force'], io())).toBe(0);
    expect(readFileSync(join(cwd, 'keep.txt'), 'utf8')).toBe('mine');
    expect(out.stdout).not.toContain('cd ');
  });

  it('exits 0 on --help and 1 on a usage error', async () => {
    expect(await runCreate(['--help'], io())).toBe(0);
    expect(out.stdout).toContain('--kit <dir>');
    expect(await runCreate(['--bogus'], io())).toBe(1);
  });

  it('lets unexpected errors through', async () => {
    const prompter = async (): Promise<Prompter> => {
      throw new TypeError('boom');
    };
    await expect(runCreate([], io({ interactive: true, prompter }))).rejects.toThrow('boom');
  });
});
