import { type Logger, silentLogger, type TaskEvent } from '@robot-mcp-kit/core';
import { createEventReceiver, type EventReceiver } from '@robot-mcp-kit/receiver';
import { MqttEventSource } from '@robot-mcp-kit/brokers';
import { FleetBoard, type TaskView } from './fleet-board.js';
import { type FleetWeb, startFleetWeb } from './fleet-web.server.js';

/** Options of {@link FleetApp.start}. */
export interface FleetAppOptions {
  /** The broker, e.g. `mqtt://127.0.0.1:1883`. */
  brokerUrl: string;
  /** Topic prefix of this fleet; robot `r` publishes under `<prefix>/<r>/…`. */
  prefix: string;
  robots: readonly string[];
  /** The HMAC secret the robots sign with (`RVC_EVENT_SECRET`). */
  secret: string;
  /** Web page port (default 0: the OS picks one). */
  port?: number;
  /** Called with every verified event. */
  onEvent?: (robot: string, task: TaskView, event: TaskEvent) => void;
  logger?: Logger;
}

/**
 * The fleet app: per robot, an MQTT event source (persistent session, QoS 1) feeding a receiver
 * (verify → dedupe → gap → onEvent), all folding into one {@link FleetBoard} shown on a web page.
 */
export class FleetApp {
  readonly board = new FleetBoard();
  private readonly sources: MqttEventSource[] = [];
  private readonly receivers: EventReceiver[] = [];
  private web: FleetWeb | undefined;

  private constructor(private readonly options: FleetAppOptions) {}

  static async start(options: FleetAppOptions): Promise<FleetApp> {
    const app = new FleetApp(options);
    try {
      await app.open();
    } catch (err) {
      await app.close();
      throw err;
    }
    return app;
  }

  /** The page URL. */
  get url(): string {
    return this.web?.url ?? '';
  }

  /** The `RVC_CALLBACK_URL` robot `robot` publishes to. */
  callbackUrl(robot: string): string {
    return `${this.options.brokerUrl}?topic_prefix=${this.options.prefix}/${robot}`;
  }

  /** Signature failures, duplicates and gaps seen by all receivers. */
  stats(): { delivered: number; rejected: number; gaps: number } {
    const all = this.receivers.map((r) => r.stats());
    return {
      delivered: all.reduce((n, s) => n + s.delivered, 0),
      rejected: all.reduce((n, s) => n + (s.byStatus[401] ?? 0) + (s.byStatus[400] ?? 0), 0),
      gaps: all.reduce((n, s) => n + s.gaps, 0),
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.sources.map((s) => s.close()));
    await Promise.allSettled(this.receivers.map((r) => r.close()));
    await this.web?.close();
  }

  private async open(): Promise<void> {
    const { options } = this;
    this.web = await startFleetWeb(this.board, options.port ?? 0);
    for (const robot of options.robots) {
      this.board.addRobot(robot);
      const receiver = createEventReceiver({
        secrets: { navigation: options.secret },
        onEvent: (event) => {
          const task = this.board.apply(robot, event);
          options.onEvent?.(robot, task, event);
        },
        logger: options.logger ?? silentLogger,
      });
      this.receivers.push(receiver);
      const source = new MqttEventSource({
        url: options.brokerUrl,
        receiver,
        clientId: `${options.prefix}-${robot}`.slice(0, 64),
        topicPrefix: `${options.prefix}/${robot}`,
        sessionExpiryS: 300,
        logger: options.logger ?? silentLogger,
      });
      await source.start();
      this.sources.push(source);
    }
  }
}
