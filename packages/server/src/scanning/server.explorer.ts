import { DecorationError } from '../errors/server.error.js';
import { METADATA_KEYS } from '../metadata/metadata.keys.js';
import { type ServerDefinition } from '../metadata/definitions.types.js';
import { type RecordedServer } from '../metadata/recorded-metadata.types.js';

/** Reads `@CapabilityServer` into a frozen {@link ServerDefinition}. */
export function exploreServer(target: abstract new (...args: never[]) => unknown): ServerDefinition {
  const recorded = Reflect.getMetadata(METADATA_KEYS.capabilityServer, target) as RecordedServer | undefined;
  if (!recorded) {
    throw new DecorationError(
      `class ${target.name}`,
      'it is not decorated with @CapabilityServer',
      `add @CapabilityServer({ name: 'my-server', version: '0.1.0' }) above the class`,
    );
  }
  if (typeof recorded.name !== 'string' || !/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(recorded.name)) {
    throw new DecorationError(
      `@CapabilityServer on ${target.name}`,
      `name ${JSON.stringify(recorded.name)} is not a valid server name`,
      'use 1-64 letters, digits, "_", "." or "-", starting with a letter or digit, e.g. "navigation"',
    );
  }
  if (typeof recorded.version !== 'string' || recorded.version.length === 0) {
    throw new DecorationError(
      `@CapabilityServer on ${target.name}`,
      'version is missing',
      `add version: '0.1.0'`,
    );
  }
  return Object.freeze({ ...recorded });
}
