import { type Feature } from '../runtime/feature.types.js';

/** The kit's built-in features, applied by bootstrap() in this order. */
export const BUILTIN_FEATURES: readonly Feature[] = [];
