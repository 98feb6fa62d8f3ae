import { type JsonObject, type TriggerPlugin, type TriggerSpec } from '@robot-mcp-kit/server';

/** `{"type": "battery_below", "percent": 20}`: fires when the progress `battery_pct` < `percent`. */
export const batteryBelowTrigger: TriggerPlugin = {
  type: 'battery_below',
  description: 'fires when the progress battery_pct (0..100, from the battery topic) < percent',
  validate(trigger: TriggerSpec): string[] {
    const { percent } = trigger;
    return typeof percent === 'number' && percent >= 0 && percent <= 100
      ? []
      : [`percent: expected a number between 0 and 100, got ${JSON.stringify(percent)}`];
  },
  evaluate(trigger: TriggerSpec, progress: JsonObject): JsonObject | undefined {
    const battery = progress.battery_pct;
    if (typeof battery !== 'number' || typeof trigger.percent !== 'number') return undefined;
    return battery < trigger.percent ? { battery_pct: battery } : undefined;
  },
};
