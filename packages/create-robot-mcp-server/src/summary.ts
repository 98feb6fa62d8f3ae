import { relative } from 'node:path';
import { type GeneratedProject } from './project.generator.js';
import { type ProjectOptions } from './options.resolver.js';
import { shellQuote } from './project.generator.js';

/** The text printed after a successful run: what was made and what to do next. */
export function nextSteps(options: ProjectOptions, project: GeneratedProject, cwd: string): string {
  const where = relative(cwd, project.directory) || '.';
  const inspectorEnv = options.transport === 'stdio' ? '' : 'MCP_TRANSPORT=stdio ';
  const lines = [
    '',
    `Created ${options.name} in ${project.directory} (${project.files.length} files):`,
    ...table([
      [
        `src/${options.name}.server.ts`,
        `@LongRunningTool ${options.longRunningTool}, @Tool ${options.plainTool}`,
      ],
      ['test/', 'tests with the official MCP client, in memory'],
      [`deploy/${options.name}.service`, 'systemd unit (hardened, loopback only)'],
    ]),
    '',
    'Next steps:',
    ...(where === '.' ? [] : [`  cd ${shellQuote(where)}`]),
    ...table([
      ['npm install', ''],
      ['npm test', '# typecheck + tests'],
      ['npm run build && npm start', `# serve the tools (transport: ${options.transport})`],
    ]),
    '',
    'Then:',
    ...table([
      ['npm run kit -- add tool scan_room --long-running --actuates', '# a tool, its DTO and a test'],
      ['npm run kit -- add trigger battery_below', '# a trigger plugin, registered'],
      ['npm run doctor', '# check Node, the settings and the callback URL'],
      [`${inspectorEnv}npx @modelcontextprotocol/inspector node dist/main.js`, '# try the tools by hand'],
    ]),
    '',
    'README.md has the Claude Desktop / Claude Code snippets and the deployment steps.',
    '',
  ];
  return lines.join('\n');
}

/** Two aligned columns, indented by two spaces. */
function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${right ? left.padEnd(width) + right : left}`);
}
