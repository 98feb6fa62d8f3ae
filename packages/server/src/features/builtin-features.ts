import { type Feature } from '../runtime/feature.types.js';
import { eventFeedFeature } from './event-feed/event-feed.feature.js';
import { taskResourcesFeature } from './resources/task-resources.feature.js';
import { toolPolicyFeature } from './safety/tool-policy.feature.js';
import { sessionCleanupFeature } from './session-cleanup.feature.js';
import { nativeTasksFeature } from './native-tasks/native-tasks.feature.js';

/** The kit's built-in features, applied by bootstrap() in this order. */
export const BUILTIN_FEATURES: readonly Feature[] = [
  eventFeedFeature,
  taskResourcesFeature,
  sessionCleanupFeature,
  toolPolicyFeature,
  nativeTasksFeature,
];
