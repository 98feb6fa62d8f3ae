import { type CapabilityServerDefinition } from '../metadata/definitions.types.js';
import { exploreServer } from './server.explorer.js';
import { exploreTools } from './tool.explorer.js';
import { exploreTriggers } from './trigger.explorer.js';

/** Scans a capability server class once into its frozen definition. */
export function exploreCapabilityServer(
  target: abstract new (...args: never[]) => unknown,
): CapabilityServerDefinition {
  return Object.freeze({
    server: exploreServer(target),
    tools: Object.freeze(exploreTools(target)),
    triggers: Object.freeze(exploreTriggers(target)),
  });
}
