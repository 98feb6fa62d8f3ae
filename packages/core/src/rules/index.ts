/**
 * @robot-mcp-kit/core/rules — the rules the kit's packages share (the server, the CLI, the
 * generator, the brokers, Redis): one module per rule, imported, never copied
 * (docs/architecture.md, "Where each rule lives").
 *
 * @packageDocumentation
 * @module rules
 */
export { toSnakeCase, toPascalCase, toCamelCase, toKebabCase, suggestSnakeCase } from './naming.rules.js';
export {
  TOOL_NAME_MAX_LENGTH,
  KIT_TOOL_NAMES,
  RESERVED_TOOL_NAMES,
  TRIGGER_TYPE_MAX_LENGTH,
  isMcpToolName,
  isReservedToolName,
  isTriggerType,
  isScaffoldToolName,
} from './name.rules.js';
export { MCP_TRANSPORTS } from './config.rules.js';
export type { McpTransport } from './config.rules.js';
export { redactUrl, redactUrlCredentials, urlOrigin } from './url.rules.js';
export { EVENT_SECRET_FIX, weakSecretAllowed, weakSecretReason } from './secret.rules.js';
export { LOG_LEVELS } from '../logging/logger.js';
export { BUILTIN_TRIGGER_TYPES } from '../triggers/builtin-triggers.js';
export { MAX_TRIGGERS, MAX_TRIGGER_BYTES } from '../triggers/trigger.validation.js';
export { isoTime } from '../models/iso-time.js';
export {
  FORBIDDEN_JSON_KEYS,
  jsonSafetyProblem,
  type JsonSafetyLimits,
  shortText,
  toFrozenJsonObject,
  type JsonCheck,
} from '../tasks/task-json.util.js';
