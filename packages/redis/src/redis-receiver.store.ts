import { type Logger } from '@robot-mcp-kit/core';
import { closeClient, type RedisClient } from './redis-connection.js';
import { RedisRefusals } from './redis-refusals.js';

/** The resolved options every receiver-side store has. */
export interface ReceiverStoreBasics {
  readonly keyPrefix: string;
  readonly unavailableRetryAfterS: number;
  readonly logger: Logger;
}

/**
 * What the receiver-side Redis stores (dedupe, seq state) share: the client, closed by
 * {@link RedisReceiverStore.close} when the store created it, the key prefix, and the 503 refusals
 * (counted, warned about at most once per 10 s) while Redis does not answer.
 */
export abstract class RedisReceiverStore {
  protected readonly refusals: RedisRefusals;
  private readonly prefix: string;

  /**
   * @param client a connected node-redis client, without offline queue and with a command timeout.
   * @param basics the store's resolved options.
   * @param outageMessage the warning logged while Redis does not answer.
   * @param ownsClient whether {@link close} closes the client.
   */
  protected constructor(
    protected readonly client: RedisClient,
    basics: ReceiverStoreBasics,
    outageMessage: string,
    private readonly ownsClient: boolean,
  ) {
    this.prefix = basics.keyPrefix;
    this.refusals = new RedisRefusals(basics.logger, outageMessage, basics.unavailableRetryAfterS);
  }

  /** The key prefix in use. */
  get keyPrefix(): string {
    return this.prefix;
  }

  /** Closes the client when the store created it (its `create...` factory). */
  async close(): Promise<void> {
    if (this.ownsClient) await closeClient(this.client);
  }
}
