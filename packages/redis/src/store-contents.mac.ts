import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@robot-mcp-kit/core';

/** The label the store key is derived under: `HMAC-SHA256(secret, label)`, never the secret itself. */
export const STORE_KEY_LABEL = 'robot-mcp-kit store v1';
/** A sealed task record ends with its MAC as its last JSON property. */
const RECORD_MAC = /,"mac":"([0-9a-f]{64})"\}$/;

/** Why a store content was refused. */
export type Refusal = 'unsigned' | 'forged';

/**
 * The MAC of what the replicas keep in Redis (outbox entries, task records), under a key derived
 * from the event secret: a process with Redis write access but not the secret cannot write an
 * entry or record a replica acts upon (delivers signed, fails as `REPLICA_LOST`, answers with).
 * Each MAC is bound to the Redis key and every field that matters, so an authentic entry or record
 * cannot be moved to another key or task. Without a secret, nothing is sealed and all is accepted.
 */
export class StoreContentsMac {
  private constructor(private readonly key: Buffer | undefined) {}

  /**
   * @param secret the event secret (or `RMK_STORE_KEY`); undefined: contents unauthenticated.
   * @throws ConfigError naming `secret` when it is given but empty.
   */
  static from(secret: string | undefined): StoreContentsMac {
    if (secret === undefined) return new StoreContentsMac(undefined);
    if (typeof secret !== 'string' || secret.trim() === '') {
      throw new ConfigError('secret', 'must be a non-empty string (the event secret), or left out');
    }
    return new StoreContentsMac(createHmac('sha256', secret).update(STORE_KEY_LABEL).digest());
  }

  /** Whether contents are sealed and checked (a secret was given). */
  get enabled(): boolean {
    return this.key !== undefined;
  }

  /** The hex MAC of `parts` (each length-prefixed, so that no two lists share a MAC); '' without a key. */
  sign(parts: readonly string[]): string {
    if (!this.key) return '';
    const mac = createHmac('sha256', this.key);
    for (const part of parts) mac.update(`${Buffer.byteLength(part)}:`).update(part);
    return mac.digest('hex');
  }

  /** Undefined when `mac` is the MAC of `parts` (or there is no key), else why not. */
  check(parts: readonly string[], mac: string | undefined): Refusal | undefined {
    if (!this.key) return undefined;
    if (mac === undefined || mac === '') return 'unsigned';
    const want = Buffer.from(this.sign(parts), 'hex');
    const got = Buffer.from(mac, 'hex');
    return got.length === want.length && timingSafeEqual(got, want) ? undefined : 'forged';
  }

  /** A task record's JSON as stored under `key`: its MAC appended as the last property. */
  sealRecord(key: string, json: string): string {
    if (!this.key || !json.endsWith('}')) return json;
    return `${json.slice(0, -1)},"mac":"${this.sign(['task', key, json])}"}`;
  }

  /** The JSON of a record read from `key` without its MAC, or why it is refused. */
  openRecord(key: string, value: string): { json: string } | { refused: Refusal } {
    if (!this.key) return { json: value };
    const found = RECORD_MAC.exec(value);
    if (!found) return { refused: 'unsigned' };
    const json = `${value.slice(0, found.index)}}`;
    const refused = this.check(['task', key, json], found[1]);
    return refused ? { refused } : { json };
  }
}
