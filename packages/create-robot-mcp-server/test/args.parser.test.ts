import { parseCreateArgs } from '../src/args.parser.js';

function sink() {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    sink: { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) },
  };
}

describe('parseCreateArgs', () => {
  it('reads the directory and every flag', () => {
    const { sink: s } = sink();
    const parsed = parseCreateArgs(
      [
        'nav',
        '--name',
        'my-nav',
        '-d',
        'Drives',
        '-t',
        'sse',
        '--tool',
        'go_to',
        '--no-long-running',
        '--kit',
        'k',
        '-f',
        '-y',
      ],
      '1.2.3',
      s,
    );
    expect(parsed).toEqual({
      kind: 'run',
      args: {
        directory: 'nav',
        name: 'my-nav',
        description: 'Drives',
        transport: 'sse',
        tool: 'go_to',
        longRunning: false,
        kit: 'k',
        force: true,
        yes: true,
      },
    });
  });

  it('leaves unset flags undefined so prompts or defaults can fill them', () => {
    const { sink: s } = sink();
    const parsed = parseCreateArgs([], '1.2.3', s);
    expect(parsed).toEqual({
      kind: 'run',
      args: {
        directory: undefined,
        name: undefined,
        description: undefined,
        transport: undefined,
        tool: undefined,
        longRunning: undefined,
        kit: undefined,
        force: false,
        yes: false,
      },
    });
    const lr = parseCreateArgs(['x', '--long-running'], '1.2.3', s);
    expect(lr.kind === 'run' && lr.args.longRunning).toBe(true);
  });

  it('reads --template and refuses a template it does not have', () => {
    const { out, sink: s } = sink();
    const ros = parseCreateArgs(['turtle', '--template', 'ros'], '1.2.3', s);
    expect(ros.kind === 'run' && ros.args.template).toBe('ros');
    expect(parseCreateArgs(['turtle', '--template', 'lego'], '1.2.3', s)).toEqual({ kind: 'exit', code: 1 });
    expect(out.stderr).toMatch(/--template <template>.*Allowed choices are basic, ros/);
  });

  it('prints the help and exits 0', () => {
    const { out, sink: s } = sink();
    expect(parseCreateArgs(['--help'], '1.2.3', s)).toEqual({ kind: 'exit', code: 0 });
    expect(out.stdout).toContain('Usage: create-robot-mcp-server [options] [directory]');
    expect(out.stdout).toContain('--no-long-running');
  });

  it('prints the version and exits 0', () => {
    const { out, sink: s } = sink();
    expect(parseCreateArgs(['-V'], '1.2.3', s)).toEqual({ kind: 'exit', code: 0 });
    expect(out.stdout.trim()).toBe('1.2.3');
  });

  it('reports an unknown flag or a bad transport and exits 1', () => {
    const a = sink();
    expect(parseCreateArgs(['--nope'], '1.2.3', a.sink)).toEqual({ kind: 'exit', code: 1 });
    expect(a.out.stderr).toContain("unknown option '--nope'");
    expect(a.out.stderr).toContain('--help');
    const b = sink();
    expect(parseCreateArgs(['x', '-t', 'ws'], '1.2.3', b.sink)).toEqual({ kind: 'exit', code: 1 });
    expect(b.out.stderr).toContain('Allowed choices are stdio, streamable-http, sse');
  });
});
