import { type CapabilityServerArgs } from '../metadata/decorator-args.types.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { recordClassMetadata } from './decorator.factory.js';

/** Marks a class as a capability server. Only records metadata; `bootstrap()` reads it. */
export function CapabilityServer(args: CapabilityServerArgs): ClassDecorator {
  return recordClassMetadata(METADATA_KEYS.capabilityServer, args);
}
