import { type Feature } from '../runtime/feature.types.js';
import { eventFeedFeature } from './event-feed/event-feed.feature.js';
import { nativeTasksFeatureFrom } from './native-tasks/native-tasks.feature.js';
import { taskResourcesFeature } from './resources/task-resources.feature.js';
import { confirmFeature } from './safety/confirm.feature.js';
import { estopFeature } from './safety/estop.feature.js';
import { toolPolicyFeature } from './safety/tool-policy.feature.js';
import { sessionCleanupFeature } from './session-cleanup/session-cleanup.feature.js';

/**
 * The factories of the kit's built-in features, applied by bootstrap() in this order, each given
 * the bootstrap options (and reading its `RMK_*` variables). A new feature is one folder and one
 * line here: its options join {@link BuiltinFeatureOptions} from this list.
 */
const BUILTIN_FEATURES = [
  eventFeedFeature,
  taskResourcesFeature,
  sessionCleanupFeature,
  toolPolicyFeature,
  estopFeature, // wraps first: the latch is checked after the human's answer, right before the start
  confirmFeature,
  nativeTasksFeatureFrom,
] as const;

/** The intersection of the members of a union of object types. */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The options one factory of the list takes. */
type OptionsOf<F> = F extends (options?: infer O) => Feature ? NonNullable<O> : never;

/**
 * Every option of the built-in features: the intersection of what each factory in the list takes,
 * so there is no second list to keep in step. `BootstrapOptions` extends it.
 */
export type BuiltinFeatureOptions = Intersection<OptionsOf<(typeof BUILTIN_FEATURES)[number]>>;

/** The built-in features, configured from the bootstrap options (which win over the variables). */
export function builtinFeatures(options: BuiltinFeatureOptions = {}): Feature[] {
  return BUILTIN_FEATURES.map((factory) => factory(options));
}
