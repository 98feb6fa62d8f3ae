import { ConfigError } from '@robot-mcp-kit/core';
import { type Feature, type FeatureContext, type FeatureNeed } from './feature.types.js';

/** Every service a feature can name (the compiler keeps this in step with {@link FeatureContext}). */
const SERVICES: Readonly<Record<FeatureNeed, true>> = {
  definition: true,
  instance: true,
  env: true,
  taskManager: true,
  projection: true,
  poster: true,
  starter: true,
  owners: true,
  triggers: true,
  schemas: true,
  logger: true,
  clock: true,
  stored: true,
};
const FEATURE_NEEDS = Object.freeze(Object.keys(SERVICES));

/**
 * A feature whose `setup` is typed by the services it names: `needs` is the one list of what it
 * may use, e.g. `defineFeature({ name: 'audit', needs: ['taskManager', 'logger'], setup({ taskManager, logger }) { … } })`.
 * Returns `feature` itself; only the types are narrowed.
 */
export function defineFeature<const N extends FeatureNeed>(feature: Feature<N>): Feature<N> {
  return feature;
}

/**
 * The services of `context` that `feature` named in `needs`, and only those (`stored` stays absent
 * without a task store).
 * @throws ConfigError naming the feature and the unknown service, with the names there are
 */
export function servicesFor<N extends FeatureNeed>(
  context: FeatureContext,
  feature: Feature<N>,
): Pick<FeatureContext, N> {
  const picked: Partial<Record<FeatureNeed, unknown>> = {};
  for (const need of feature.needs) {
    if (!Object.hasOwn(SERVICES, need)) {
      throw new ConfigError(
        `features[${feature.name}].needs`,
        `unknown app service "${String(need)}"; a feature can name: ${FEATURE_NEEDS.join(', ')}`,
      );
    }
    if (context[need] !== undefined) picked[need] = context[need];
  }
  return picked as Pick<FeatureContext, N>;
}
