import { join } from 'node:path';
import { type CreateArgs } from '../src/args.parser.js';
import { GeneratorError } from '../src/generator.error.js';
import { resolveOptions } from '../src/options.resolver.js';
import { type Prompter } from '../src/prompts.js';

const CWD = '/work/here';
const args = (overrides: Partial<CreateArgs> = {}): CreateArgs => ({ force: false, yes: true, ...overrides });

/** A prompter that answers from a script and records the questions. */
function scripted(answers: Record<string, string | boolean>): Prompter & { asked: string[] } {
  const asked: string[] = [];
  const answer = (message: string, fallback: unknown): unknown => {
    asked.push(message);
    return message in answers ? answers[message] : fallback;
  };
  return {
    asked,
    input: async (q) => {
      const value = answer(q.message, q.default) as string;
      const verdict = q.validate?.(value);
      if (verdict !== undefined && verdict !== true) throw new Error(`prompt refused: ${verdict}`);
      return value;
    },
    select: async <T extends string>(q: { message: string; default?: T }) =>
      answer(q.message, q.default) as T,
    confirm: async (q) => answer(q.message, q.default) as boolean,
  };
}

describe('resolveOptions without prompts', () => {
  it('takes the name from the directory and defaults for the rest', async () => {
    const options = await resolveOptions(args({ directory: 'robots/my-nav' }), { cwd: CWD });
    expect(options).toEqual({
      directory: join(CWD, 'robots/my-nav'),
      name: 'my-nav',
      description: 'Robot capability server my-nav',
      transport: 'stdio',
      longRunningTool: 'patrol',
      plainTool: 'get_status',
      firstToolLongRunning: true,
      firstToolActuates: true,
      kit: undefined,
      force: false,
    });
  });

  it('uses the name as the directory when only --name is given', async () => {
    const options = await resolveOptions(args({ name: 'arm', kit: 'kit' }), { cwd: CWD });
    expect(options.directory).toBe(join(CWD, 'arm'));
    expect(options.kit).toBe(join(CWD, 'kit'));
  });

  it('makes the first tool the plain one with --no-long-running', async () => {
    const options = await resolveOptions(args({ directory: 'arm', tool: 'get_pose', longRunning: false }), {
      cwd: CWD,
    });
    expect(options).toMatchObject({
      plainTool: 'get_pose',
      longRunningTool: 'patrol',
      firstToolLongRunning: false,
    });
    const defaults = await resolveOptions(args({ directory: 'arm', longRunning: false }), { cwd: CWD });
    expect(defaults).toMatchObject({ plainTool: 'get_status', longRunningTool: 'patrol' });
  });

  it('makes a long-running first tool act by default, a plain one read; --actuates / --no-actuates say otherwise', async () => {
    const cases: [Partial<CreateArgs>, boolean][] = [
      [{}, true],
      [{ longRunning: false }, false],
      [{ longRunning: false, actuates: true }, true],
      [{ actuates: false }, false],
    ];
    for (const [flags, expected] of cases) {
      const options = await resolveOptions(args({ directory: 'arm', ...flags }), { cwd: CWD });
      expect(options.firstToolActuates).toBe(expected);
    }
  });

  it('--template ros has fixed tools and refuses the tool flags', async () => {
    const options = await resolveOptions(args({ directory: 'turtle', template: 'ros' }), { cwd: CWD });
    expect(options).toMatchObject({
      template: 'ros',
      longRunningTool: 'navigate_to_pose',
      plainTool: 'get_battery',
      firstToolActuates: true,
    });
    await expect(
      resolveOptions(args({ directory: 'turtle', template: 'ros', tool: 'go' }), { cwd: CWD }),
    ).rejects.toThrow(/^--tool: the ros template has fixed tools/);
    await expect(
      resolveOptions(args({ directory: 'turtle', template: 'lego' }), { cwd: CWD }),
    ).rejects.toThrow('--template: "lego" is not a template; use one of basic, ros');
  });

  it('needs a directory or a name', async () => {
    await expect(resolveOptions(args(), { cwd: CWD })).rejects.toThrow(
      '<directory>: missing; say where to create the project, e.g. "create-robot-mcp-server my-nav --yes"',
    );
  });

  it('refuses a directory name that is not a server name, saying to pass --name', async () => {
    await expect(resolveOptions(args({ directory: 'My Robot' }), { cwd: CWD })).rejects.toThrow(
      /pass --name my-robot/,
    );
  });

  it('validates every flag', async () => {
    await expect(resolveOptions(args({ directory: 'a', transport: 'ws' }), { cwd: CWD })).rejects.toThrow(
      GeneratorError,
    );
    await expect(resolveOptions(args({ directory: 'a', tool: 'Bad' }), { cwd: CWD })).rejects.toThrow(
      '--tool',
    );
    await expect(resolveOptions(args({ directory: 'a', description: 'x\ny' }), { cwd: CWD })).rejects.toThrow(
      '--description',
    );
    await expect(resolveOptions(args({ name: 'Bad' }), { cwd: CWD })).rejects.toThrow('--name');
  });

  it('refuses a first tool named like the companion tool', async () => {
    await expect(resolveOptions(args({ directory: 'a', tool: 'get_status' }), { cwd: CWD })).rejects.toThrow(
      '"get_status" is the name of the generated plain tool',
    );
    await expect(
      resolveOptions(args({ directory: 'a', tool: 'patrol', longRunning: false }), { cwd: CWD }),
    ).rejects.toThrow('"patrol" is the name of the generated long-running tool');
  });
});

describe('resolveOptions with prompts', () => {
  it('asks for everything the flags leave open, in order', async () => {
    const prompter = scripted({
      'Server name': 'arm-ctl',
      Description: 'Moves the arm',
      'Transport of `npm start`': 'streamable-http',
      'Is the first tool long-running (runs as a task with progress)?': false,
      'Does the first tool act on the world (move, grip, switch)? --read-only hides such tools': true,
      'First tool name': 'move_joint',
    });
    const options = await resolveOptions(args({ yes: false }), { cwd: CWD, prompter });
    expect(prompter.asked).toEqual([
      'Server name',
      'Description',
      'Transport of `npm start`',
      'Is the first tool long-running (runs as a task with progress)?',
      'Does the first tool act on the world (move, grip, switch)? --read-only hides such tools',
      'First tool name',
    ]);
    expect(options).toMatchObject({
      directory: join(CWD, 'arm-ctl'),
      name: 'arm-ctl',
      description: 'Moves the arm',
      transport: 'streamable-http',
      plainTool: 'move_joint',
      longRunningTool: 'patrol',
      firstToolLongRunning: false,
      firstToolActuates: true,
    });
  });

  it('does not ask what the flags say', async () => {
    const prompter = scripted({});
    await resolveOptions(
      {
        directory: 'x',
        name: 'x',
        description: 'd',
        transport: 'sse',
        longRunning: true,
        actuates: false,
        tool: 'go',
        force: false,
        yes: false,
      },
      { cwd: CWD, prompter },
    );
    expect(prompter.asked).toEqual([]);
  });

  it('offers the directory name as the default server name, and the defaults pass validation', async () => {
    const prompter = scripted({});
    const options = await resolveOptions(args({ directory: 'Nav Bot', yes: false }), { cwd: CWD, prompter });
    expect(options.name).toBe('nav-bot');
    expect(options.directory).toBe(join(CWD, 'Nav Bot'));
  });

  it('validates typed answers with the same rules (the prompt shows the message)', async () => {
    const prompter = scripted({ 'Server name': 'Bad Name' });
    await expect(resolveOptions(args({ yes: false }), { cwd: CWD, prompter })).rejects.toThrow(
      /prompt refused: "Bad Name" is not a valid server name/,
    );
  });
});
