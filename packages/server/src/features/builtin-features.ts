import { type Feature } from '../runtime/feature.types.js';
import { eventFeedFeature } from './event-feed/event-feed.feature.js';
import { type BuiltinFeatureOptions } from './feature-options.js';
import { nativeTasksFeature } from './native-tasks/native-tasks.feature.js';
import { taskResourcesFeature } from './resources/task-resources.feature.js';
import { toolPolicyFeature } from './safety/tool-policy.feature.js';
import { sessionCleanupFeature } from './session-cleanup.feature.js';

/**
 * The kit's built-in features, applied by bootstrap() in this order, each configured from the
 * bootstrap options (which win) and its `RMK_*` variables. A new feature is one folder and one line.
 */
export function builtinFeatures(options: BuiltinFeatureOptions = {}): Feature[] {
  return [
    eventFeedFeature(options),
    taskResourcesFeature(options),
    sessionCleanupFeature(options),
    toolPolicyFeature(options),
    nativeTasksFeature(options.nativeTasks),
  ];
}
