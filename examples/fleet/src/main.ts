#!/usr/bin/env node
import { randomBytes } from 'node:crypto';
import { FleetApp } from './fleet-app.js';
import { eventLine } from './fleet-terminal.js';
import { type Robot, startRobot } from './robot-fleet.js';

// `npm run fleet` (or `node examples/fleet/dist/main.js`): starts the fleet app, then ROBOTS
// navigation robots publishing through MQTT, sends each on a trip and shows every event live.
// Options: --ci (fast robots, one trip each, exit 0 when all arrived, 1 otherwise);
// FLEET_BROKER_URL (default mqtt://127.0.0.1:1883), FLEET_ROBOTS (default 3), FLEET_PORT (default 8080; 0 = any).
const GOALS = ['kitchen', 'lab', 'corridor', 'lobby', 'dock'];
const ci = process.argv.includes('--ci');
const brokerUrl = process.env.FLEET_BROKER_URL ?? 'mqtt://127.0.0.1:1883';
const count = Number(process.env.FLEET_ROBOTS ?? 3);
const port = Number(process.env.FLEET_PORT ?? (ci ? 0 : 8080));
if (!Number.isInteger(count) || count < 1 || count > 20) {
  console.error(`fleet: FLEET_ROBOTS must be a whole number from 1 to 20, got "${process.env.FLEET_ROBOTS}"`);
  process.exit(1);
}

const secret = randomBytes(32).toString('hex');
const names = Array.from({ length: count }, (_, i) => `robot-${i + 1}`);
const app = await FleetApp.start({
  brokerUrl,
  prefix: `fleet-${randomBytes(3).toString('hex')}`,
  robots: names,
  secret,
  port,
  onEvent: (robot, task, event) => console.log(eventLine(robot, task, event)),
}).catch((err: unknown) => {
  console.error(`fleet: cannot start the app: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
console.log(`fleet page: ${app.url}`);

const robots: Robot[] = [];
const stop = async (code: number): Promise<never> => {
  await Promise.allSettled(robots.map((r) => r.close()));
  await app.close();
  process.exit(code);
};
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

try {
  for (const name of names) {
    robots.push(
      await startRobot(name, { callbackUrl: app.callbackUrl(name), secret, speedMps: ci ? 12 : 2 }),
    );
  }
  const trips = new Map<string, number>();
  const send = async (robot: Robot): Promise<void> => {
    const trip = (trips.get(robot.name) ?? 0) + 1;
    trips.set(robot.name, trip);
    const goal = GOALS[(robots.indexOf(robot) + trip - 1) % GOALS.length]!;
    const taskId = await robot.navigate(goal);
    console.log(`${robot.name.padEnd(8)} ${taskId} → navigate_to ${goal}`);
  };
  for (const robot of robots) await send(robot);
  if (!ci) {
    // Live mode: each robot sets off again when it arrives, until Ctrl-C.
    app.board.onChange((robot, task) => {
      if (task.state !== 'running' && task.last !== 'progress') {
        const next = robots.find((r) => r.name === robot);
        if (next) setTimeout(() => void send(next).catch(() => undefined), 1500);
      }
    });
    console.log('live: robots keep driving; open the page above; Ctrl-C to stop');
  } else {
    const deadline = Date.now() + 60_000;
    const arrived = () =>
      app.board.snapshot().robots.every((r) => r.tasks.some((t) => t.state === 'succeeded'));
    while (!arrived() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const stats = app.stats();
    const ok = arrived() && stats.rejected === 0 && stats.gaps === 0;
    console.log(
      `${ok ? '✔' : '✘'} fleet demo: ${count} robots, ${stats.delivered} events verified, ` +
        `${stats.rejected} rejected, ${stats.gaps} gaps`,
    );
    await stop(ok ? 0 : 1);
  }
} catch (err) {
  console.error(`fleet: ${err instanceof Error ? err.message : String(err)}`);
  await stop(1);
}
