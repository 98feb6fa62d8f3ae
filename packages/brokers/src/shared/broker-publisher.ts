import {
  type Clock,
  type DeliveryOutcome,
  type EventDelivery,
  type EventTransport,
  type Logger,
  silentLogger,
  systemClock,
} from '@robot-mcp-kit/core';
import { type BrokerCommonOptions, checkCommon, positiveMs } from './broker-options.js';
import { ConnectOnce } from './connect-once.js';
import { publishAttempt, type PublishTarget } from './publish-attempt.js';
import { type SignedMessage, signMessage } from './signed-message.js';

/** The settings every broker transport resolves the same way from its options. */
export interface TransportSettings {
  /** Per-publish acknowledgement timeout (default 10 000 ms). */
  readonly timeoutMs: number;
  /** First connection deadline (default 5 000 ms). */
  readonly connectTimeoutMs: number;
  readonly clock: Clock;
  /** The options' logger (silent when none) with `target` set to the transport's description. */
  readonly logger: Logger;
}

/**
 * Checks the options every broker transport shares and applies their defaults.
 * @throws ConfigError naming the bad option.
 */
export function transportSettings(
  options: BrokerCommonOptions & { clock?: Clock; logger?: Logger },
  description: string,
): TransportSettings {
  checkCommon(options);
  return {
    timeoutMs: positiveMs(options.timeoutMs, 10_000, 'timeoutMs'),
    connectTimeoutMs: positiveMs(options.connectTimeoutMs, 5_000, 'connectTimeoutMs'),
    clock: options.clock ?? systemClock,
    logger: (options.logger ?? silentLogger).child({ target: description }),
  };
}

/** What one broker (MQTT, JetStream) brings to a {@link BrokerPublisher}. */
export interface BrokerLink<Client> {
  /** `messaging.system` of the attempts' spans. */
  readonly system: PublishTarget['system'];
  /** The debug line of a publish that succeeded (default `event published`). */
  readonly done?: string;
  /** The `ok: false` error of a send while the client is not live. */
  readonly notLive: string;
  /** Connects. @throws ConfigError with the fix */
  connect(): Promise<Client>;
  isLive(client: Client): boolean;
  /** The topic or subject of an event. */
  destination(event: EventDelivery['event']): string;
  /** One publish; resolves once the broker acknowledged it, with what to add to the debug line. */
  publish(
    client: Client,
    destination: string,
    message: SignedMessage,
    delivery: EventDelivery,
  ): Promise<Record<string, unknown> | undefined>;
  /** Closes a client; never rejects. */
  disconnect(client: Client): Promise<void>;
}

/**
 * The part of a broker transport that MQTT and JetStream share, by composition: the connection
 * made once on first use (a failed one retried by the next send), the closed state, and `send`:
 * one signed publish per attempt, answering `{ ok: false }` instead of throwing.
 */
export class BrokerPublisher<Client> {
  private client: Client | undefined;
  private closed = false;
  private readonly connection = new ConnectOnce(() => this.connect());

  constructor(
    private readonly link: BrokerLink<Client>,
    private readonly signing: Pick<BrokerCommonOptions, 'serverName' | 'secret'>,
    private readonly settings: TransportSettings,
  ) {}

  /** Connects once. @throws what the link's `connect` throws */
  open(): Promise<void> {
    return this.connection.open();
  }

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    if (this.closed) return { ok: false, error: 'transport closed' };
    const notReady = await this.connection.ready();
    if (notReady !== undefined) return { ok: false, error: notReady };
    const client = this.client;
    if (client === undefined || !this.link.isLive(client)) return { ok: false, error: this.link.notLive };
    const message = signMessage(delivery, this.signing.serverName, this.signing.secret, this.settings.clock);
    const destination = this.link.destination(delivery.event);
    const target = { system: this.link.system, destination, done: this.link.done };
    return publishAttempt(delivery, this.settings.logger, target, () =>
      this.link.publish(client, destination, message, delivery),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) await this.link.disconnect(client);
  }

  private async connect(): Promise<void> {
    const client = await this.link.connect();
    if (this.closed) await this.link.disconnect(client);
    else this.client = client;
  }
}

/**
 * The `EventTransport` methods of a broker transport, served by its {@link BrokerPublisher}
 * (MQTT and JetStream differ only in the {@link BrokerLink} they give it).
 */
export abstract class BrokerEventTransport<Client> implements EventTransport {
  abstract readonly description: string;
  abstract readonly maxInFlight: number;
  /** @internal */
  protected abstract readonly publisher: BrokerPublisher<Client>;

  /** Connects (once). @throws ConfigError naming `RVC_CALLBACK_URL` with the fix */
  open(): Promise<void> {
    return this.publisher.open();
  }

  send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    return this.publisher.send(delivery);
  }

  close(): Promise<void> {
    return this.publisher.close();
  }
}
