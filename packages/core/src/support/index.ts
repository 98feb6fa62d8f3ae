/**
 * `@robot-mcp-kit/core/support`: the helpers the kit's packages share (server, Redis adapters,
 * ROS connection, CLI, generator) so that each is written once — backoff, deadlines, JSON limits
 * and the scaffoldable tool-name check. Not an author's API: the main entry is.
 *
 * @packageDocumentation
 */
export { Backoff } from './backoff.js';
export { pause, pollUntil, type PollOptions, waitAtMost, withTimeout } from './deadline.js';
export { JSON_LIMITS, type JsonLimitKind, jsonLimitProblem } from './json-limits.js';
export { scaffoldToolNameProblem } from './tool-name.check.js';
