import { relative } from 'node:path';
import { type GeneratedProject } from './project.generator.js';
import { type ProjectOptions } from './options.resolver.js';
import { shellQuote } from './project.generator.js';

/** The text printed after a successful run: what was made and what to do next. */
export function nextSteps(options: ProjectOptions, project: GeneratedProject, cwd: string): string {
  const where = relative(cwd, project.directory) || '.';
  const lines = [
    '',
    `Created ${options.name} in ${project.directory} (${project.files.length} files):`,
    `  src/${options.name}.server.ts   @LongRunningTool ${options.longRunningTool}, @Tool ${options.plainTool}`,
    `  test/                           tests with the official MCP client, in memory`,
    `  deploy/${options.name}.service  systemd unit (hardened, loopback only)`,
    '',
    'Next steps:',
    ...(where === '.' ? [] : [`  cd ${shellQuote(where)}`]),
    '  npm install',
    '  npm test                        # typecheck + tests',
    '  npm run build && npm start      # serve the tools (MCP_TRANSPORT: ' + options.transport + ')',
    '',
    'Then:',
    '  npx robot-mcp-kit add tool scan_room --long-running   # a tool, its DTO and a test',
    '  npx robot-mcp-kit add trigger battery_below          # a trigger plugin, registered',
    '  npx robot-mcp-kit doctor                              # check Node, env and the callback URL',
    '  npx @modelcontextprotocol/inspector node dist/main.js # try the tools by hand',
    '',
    'README.md has the Claude Desktop / Claude Code snippets and the deployment steps.',
    '',
  ];
  return lines.join('\n');
}
