import { type NavigateToPoseFeedback, type NavigateToPoseGoal } from '../messages/common.messages.js';

/** How the simulated robot drives. */
export interface SimulatedRobotOptions {
  /** Metres per second (default 2). */
  readonly speedMps?: number;
  /** A feedback message every this many ms (default 50: Nav2's 20 Hz is 50 ms). */
  readonly feedbackIntervalMs?: number;
  /** Battery at start, 0..1 (default 0.9). */
  readonly battery?: number;
  /** Battery drained per metre driven, 0..1 (default 0.01). */
  readonly drainPerMetre?: number;
}

/** One goal being driven to, with the timer that moves the robot. */
export interface DrivingGoal {
  readonly id: string;
  readonly target: { x: number; y: number };
  readonly startedAt: number;
  timer: NodeJS.Timeout | undefined;
}

/** A robot on a plane: drives straight to a pose at a constant speed, draining its battery. */
export class SimulatedNav2Robot {
  x = 0;
  y = 0;
  battery: number;
  docked = false;
  readonly speedMps: number;
  feedbackIntervalMs: number;
  readonly drainPerMetre: number;

  constructor(options: SimulatedRobotOptions = {}) {
    this.speedMps = options.speedMps ?? 2;
    this.feedbackIntervalMs = options.feedbackIntervalMs ?? 50;
    this.battery = options.battery ?? 0.9;
    this.drainPerMetre = options.drainPerMetre ?? 0.01;
  }

  target(goal: NavigateToPoseGoal): { x: number; y: number } | undefined {
    const p = goal?.pose?.pose?.position;
    if (!p || typeof p.x !== 'number' || typeof p.y !== 'number') return undefined;
    return { x: p.x, y: p.y };
  }

  /** Moves one feedback interval towards the target; true when arrived. */
  step(target: { x: number; y: number }): boolean {
    const dx = target.x - this.x;
    const dy = target.y - this.y;
    const distance = Math.hypot(dx, dy);
    const stride = (this.speedMps * this.feedbackIntervalMs) / 1000;
    const moved = Math.min(stride, distance);
    if (distance > 0) {
      this.x += (dx / distance) * moved;
      this.y += (dy / distance) * moved;
    }
    this.docked = false;
    this.battery = Math.max(0, this.battery - moved * this.drainPerMetre);
    return distance - moved <= 1e-9;
  }

  feedback(goal: DrivingGoal, now: number): NavigateToPoseFeedback {
    const remaining = Math.hypot(goal.target.x - this.x, goal.target.y - this.y);
    const eta = remaining / this.speedMps;
    const elapsed = (now - goal.startedAt) / 1000;
    return {
      current_pose: {
        header: { frame_id: 'map' },
        pose: { position: { x: this.x, y: this.y, z: 0 }, orientation: { x: 0, y: 0, z: 0, w: 1 } },
      },
      navigation_time: duration(elapsed),
      estimated_time_remaining: duration(eta),
      number_of_recoveries: 0,
      distance_remaining: remaining,
    };
  }
}

function duration(seconds: number): { sec: number; nanosec: number } {
  const sec = Math.floor(seconds);
  return { sec, nanosec: Math.round((seconds - sec) * 1e9) };
}
