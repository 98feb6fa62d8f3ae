export { runCli, cliVersion, CLI_NAME } from './cli.program.js';
export type { CliIo } from './cli.program.js';
export { CliError } from './cli.error.js';
export type { CliErrorCode } from './cli.error.js';
export { addTool, existingToolNames } from './add-tool/add-tool.command.js';
export type { AddToolOptions, AddToolResult } from './add-tool/add-tool.command.js';
export { toolSnippet, toolTestText } from './add-tool/tool.snippets.js';
export type { ToolNames, ToolSnippet } from './add-tool/tool.snippets.js';
export { harnessText, HARNESS_PATH } from './add-tool/harness.snippet.js';
export { addTrigger } from './add-trigger/add-trigger.command.js';
export type { AddTriggerOptions, AddTriggerResult } from './add-trigger/add-trigger.command.js';
export {
  triggerNames,
  triggerShape,
  triggerPluginText,
  triggerTestText,
} from './add-trigger/trigger.snippets.js';
export type { TriggerNames, TriggerShape } from './add-trigger/trigger.snippets.js';
export { runDoctor, formatReport } from './doctor/doctor.command.js';
export type { DoctorOptions, DoctorReport } from './doctor/doctor.command.js';
export {
  checkNode,
  checkProject,
  checkTransport,
  defaultTransport,
  checkEvents,
  checkLogLevel,
  compareVersions,
  MIN_NODE,
  TRANSPORTS,
  LOG_LEVELS,
} from './doctor/doctor.checks.js';
export type { CheckResult, CheckStatus, EnvView, EventChecks } from './doctor/doctor.checks.js';
export { parseEnvFile } from './doctor/env-file.parser.js';
export type { EnvFile } from './doctor/env-file.parser.js';
export { probeCallback } from './doctor/callback.probe.js';
export type { ProbeOutcome } from './doctor/callback.probe.js';
export { ensureNamedImports } from './project/imports.js';
export type { NamedImport } from './project/imports.js';
export {
  findProjectRoot,
  locateServerClass,
  listServerFiles,
  importSpecifier,
} from './project/project.locator.js';
export type { ServerClassLocation } from './project/project.locator.js';
export { validateToolName, validateTriggerType } from './naming.js';
