// The demo's stand-in for the chat app's POST /api/agent/events endpoint: a node:http server on
// 127.0.0.1 that checks each event's X-RVC-Signature with core's verify() before accepting it.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

export const EVENTS_PATH = '/api/agent/events';

/**
 * Starts the receiver on a free loopback port.
 * - `onEvent({ event, server, duplicate })` for every verified event (2xx sent);
 * - `onRejected({ reason, server })` for a bad signature or body (401 / 400 sent).
 * Resolves with `{ url, close() }`.
 */
export async function startReceiver({ secret, verify, onEvent, onRejected }) {
  const seen = new Set();
  const http = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== EVENTS_PATH) {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const server = req.headers['x-rvc-server'];
      const timestamp = req.headers['x-rvc-timestamp'];
      const signature = req.headers['x-rvc-signature'];
      if (!verify(secret, String(timestamp), body, String(signature))) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"bad signature"}');
        onRejected({ reason: `bad signature (X-RVC-Signature: ${String(signature)})`, server });
        return;
      }
      let event;
      try {
        event = JSON.parse(body.toString('utf8'));
      } catch (err) {
        res.writeHead(400).end();
        onRejected({ reason: `body is not JSON: ${err.message}`, server });
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      // Delivery is at-least-once: a retried event has the same event_id.
      const duplicate = seen.has(event.event_id);
      seen.add(event.event_id);
      onEvent({ event, server, duplicate });
    });
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', resolve);
  });
  const { port } = http.address();
  return {
    url: `http://127.0.0.1:${port}${EVENTS_PATH}`,
    close: () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
