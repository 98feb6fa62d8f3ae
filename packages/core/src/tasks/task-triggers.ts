import { type JsonObject } from '../models/json.types.js';
import { type Trigger } from '../triggers/trigger.types.js';
import { canonicalJson } from './task-json.util.js';

function repeats(trigger: JsonObject): boolean {
  return trigger.repeat === true;
}

/**
 * The at-most-once bookkeeping of one task's triggers (spec §3.2): fired state by list index (two
 * equal dicts are two triggers), triggers fired by hand that are not in the list by canonical JSON,
 * and which unknown types were already warned about.
 */
export class TriggerTracker {
  private readonly fired: boolean[];
  private keys: string[] | undefined;
  private firedOutside: Set<string> | undefined;
  private warned: Set<string> | undefined;

  constructor(private readonly triggers: readonly Trigger[]) {
    this.fired = triggers.map(() => false);
  }

  /** Whether the trigger at `index` may fire now (not fired yet, or `repeat: true`). */
  canFire(index: number): boolean {
    const trigger = this.triggers[index];
    return trigger !== undefined && (!this.fired[index] || repeats(trigger));
  }

  markFired(index: number): void {
    this.fired[index] = true;
  }

  /** The index of `trigger` in the list by identity, or -1. */
  indexOf(trigger: unknown): number {
    return this.triggers.indexOf(trigger as Trigger);
  }

  /**
   * Claims a trigger fired by hand that is not one of the list's objects: the first unfired entry
   * deep-equal to it (or an equal `repeat` entry), else the trigger itself once per distinct JSON.
   * Returns the dict to report in the event, or undefined when at-most-once forbids firing.
   */
  claimByValue(trigger: JsonObject): JsonObject | undefined {
    const key = canonicalJson(trigger);
    this.keys ??= this.triggers.map((t) => canonicalJson(t));
    let firstEqual = -1;
    for (let index = 0; index < this.keys.length; index += 1) {
      if (this.keys[index] !== key) continue;
      if (firstEqual < 0) firstEqual = index;
      if (!this.fired[index]) {
        this.fired[index] = true;
        return this.triggers[index];
      }
    }
    if (firstEqual >= 0) return this.canFire(firstEqual) ? this.triggers[firstEqual] : undefined;
    if (repeats(trigger)) return trigger;
    this.firedOutside ??= new Set();
    if (this.firedOutside.has(key)) return undefined;
    this.firedOutside.add(key);
    return trigger;
  }

  /** True the first time an unknown `type` is seen (so it is warned about once per task). */
  firstUnknown(type: string): boolean {
    this.warned ??= new Set();
    if (this.warned.has(type)) return false;
    this.warned.add(type);
    return true;
  }
}
