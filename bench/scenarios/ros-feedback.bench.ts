import { performance } from 'node:perf_hooks';
import {
  type DeliveryOutcome,
  type EventDelivery,
  EventPoster,
  type EventTransport,
  etaBelowTrigger,
  type JsonObject,
  sign,
  TaskManager,
  TriggerRegistry,
} from '@robot-mcp-kit/core';
import { durationSeconds, NAV2_MSGS, type NavigateToPoseGoal, RoslibRosConnection } from '@robot-mcp-kit/ros';
import { startRosbridgeDouble } from '@robot-mcp-kit/ros/testing';
import { Action, Ros } from 'roslib';
import { type BenchSide, interleave } from '../harness/ab-runner.js';
import { BenchCheckError, type BenchContext, sized } from '../harness/bench-context.js';
import { type BenchRow, makeRow } from '../harness/bench-row.js';

const SECRET = 'bench-ros-secret-0123456789abcdef';
const FEEDBACK_MS = 20; // 50 Hz
const SPEED_MPS = 1;

/** Signs every event as the HTTP transport does (HMAC-SHA256 over timestamp.body) and notes when. */
class SigningClockTransport implements EventTransport {
  readonly description = 'signing';
  readonly progressAt: number[] = [];

  async send(delivery: EventDelivery): Promise<DeliveryOutcome> {
    sign(SECRET, Math.floor(Date.now() / 1000), delivery.body);
    if (delivery.event.type === 'progress') this.progressAt.push(performance.now());
    return { ok: true, status: 200 };
  }
}

const goalAt = (x: number): NavigateToPoseGoal => ({
  pose: {
    header: { frame_id: 'map' },
    pose: { position: { x, y: 0, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
  },
});

/**
 * Nav2-style feedback at 50 Hz from the rosbridge double: per message, the time from the double
 * sending `action_feedback` to the signed `progress` event leaving the kit (roslib → runAction →
 * ctx.progress with an eta_below trigger → EventPoster → HMAC), against a bare roslib action client
 * receiving the same feedback in its callback.
 */
export async function rosFeedbackBenchmarks(ctx: BenchContext): Promise<BenchRow[]> {
  ctx.log('ROS feedback at 50 Hz through rosbridge to signed events');
  const feedbacks = sized(ctx, 20, 100);
  const plan = sized(ctx, { warmupRounds: 1, rounds: 2 }, { warmupRounds: 1, rounds: 8 });
  const double = await startRosbridgeDouble({ speedMps: SPEED_MPS, feedbackIntervalMs: FEEDBACK_MS });
  const sentAt: number[] = [];
  double.onSend = (m) => {
    if (m.op === 'action_feedback') sentAt.push(performance.now());
  };
  const connection = new RoslibRosConnection({ url: double.url });
  await connection.whenConnected();
  const transport = new SigningClockTransport();
  const poster = new EventPoster({ serverName: 'bench', transport, maxQueue: 100_000 });
  const manager = new TaskManager({
    serverName: 'bench',
    poster,
    triggers: new TriggerRegistry([etaBelowTrigger]),
  });
  const bare = new Ros({});
  const opened = new Promise((resolve) => bare.once('connection', resolve));
  await bare.connect(double.url);
  await opened;
  const distance = (feedbacks + 0.5) * SPEED_MPS * (FEEDBACK_MS / 1000);
  let leg = 0;
  const target = () => (leg++ % 2 === 0 ? distance : 0);

  const latencies = (received: readonly number[]): number[] => {
    if (received.length !== sentAt.length) {
      throw new BenchCheckError(`${sentAt.length} feedback messages sent, ${received.length} received`);
    }
    return received.map((at, i) => (at - sentAt[i]!) * 1000);
  };

  const kit: BenchSide = {
    name: 'kit',
    async round() {
      sentAt.length = 0;
      transport.progressAt.length = 0;
      const info = manager.start(
        'navigate_to_pose',
        (task) =>
          connection.runAction('/navigate_to_pose', NAV2_MSGS.NavigateToPose, goalAt(target()), task, {
            progress: (f): JsonObject => ({
              eta_s: durationSeconds(f.estimated_time_remaining) ?? 0,
              distance_m: f.distance_remaining,
            }),
          }),
        { triggers: [{ type: 'eta_below', seconds: 0 }] },
      );
      await manager.whenStopped(info.task_id);
      if (!(await poster.flush(10_000))) throw new BenchCheckError('events did not flush');
      const state = manager.get(info.task_id)?.state;
      if (state !== 'succeeded') throw new BenchCheckError(`the goal ended ${String(state)}`);
      return latencies(transport.progressAt);
    },
  };
  const roslib: BenchSide = {
    name: 'bare roslib',
    async round() {
      sentAt.length = 0;
      const received: number[] = [];
      const action = new Action({
        ros: bare,
        name: '/navigate_to_pose',
        actionType: NAV2_MSGS.NavigateToPose.type,
      });
      await new Promise<void>((resolve, reject) => {
        action.sendGoal(
          goalAt(target()),
          () => resolve(),
          () => received.push(performance.now()),
          (e) => reject(new BenchCheckError(e)),
        );
      });
      return latencies(received);
    },
  };

  try {
    const s = await interleave(kit, roslib, plan);
    return [
      makeRow(
        {
          id: 'ros-feedback',
          scenario: 'ROS action feedback (50 Hz) → signed progress event, per message',
          baseline: 'bare roslib action client, feedback callback',
          unit: 'us',
          notes: 'informational: latency from the rosbridge double sending to the event signed',
        },
        s.subject,
        s.baseline,
        s.cpu,
      ),
    ];
  } finally {
    bare.close();
    connection.close();
    await manager.aclose();
    await double.stop();
  }
}
