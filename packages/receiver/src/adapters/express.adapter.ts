import { type IncomingMessage, type ServerResponse } from 'node:http';
import { createEventReceiver, EventReceiver } from '../receiver/event-receiver.js';
import { type EventReceiverOptions } from '../receiver/receiver.types.js';

/**
 * An Express request handler (typed structurally: the package does not depend on express).
 * `receiver` is the EventReceiver behind it, for `stats()`, `openTasks()` and `close()`.
 */
export interface ExpressEventHandler {
  (req: IncomingMessage & { rawBody?: unknown }, res: ServerResponse, next?: (err?: unknown) => void): void;
  readonly receiver: EventReceiver;
}

/**
 * The receiver as an Express handler. Mount it with no body parser in front (it reads the raw
 * bytes itself), or have the parser keep them in `req.rawBody` (a Buffer):
 *
 * ```ts
 * app.all('/api/agent/events', expressEventReceiver({ secrets, onEvent }));
 * ```
 *
 * `app.all` lets the receiver answer 405 to other methods; `app.post` works too. It always
 * answers and never calls `next`.
 */
export function expressEventReceiver(options: EventReceiverOptions | EventReceiver): ExpressEventHandler {
  const receiver = options instanceof EventReceiver ? options : createEventReceiver(options);
  const handler = (req: IncomingMessage, res: ServerResponse): void => receiver.handler(req, res);
  return Object.assign(handler, { receiver });
}
