import {
  TaskInfo,
  etaBelowTrigger,
  progressAboveTrigger,
  zoneEnteredTrigger,
  type Trigger,
} from '@robot-mcp-kit/core';

const task = TaskInfo.create({
  task_id: 'navi-000001',
  server: 'navigation',
  tool: 'navigate_to',
  state: 'running',
  created_at: new Date(0),
  updated_at: new Date(0),
});

describe('progressAboveTrigger', () => {
  const trigger: Trigger = { type: 'progress_above', percent: 50 };
  it('fires when percent >= the threshold', () => {
    expect(progressAboveTrigger.evaluate(trigger, { percent: 49.9 }, task)).toBeUndefined();
    expect(progressAboveTrigger.evaluate(trigger, { percent: 50 }, task)).toEqual({ percent: 50 });
    expect(progressAboveTrigger.evaluate(trigger, { percent: 80 }, task)).toEqual({ percent: 80 });
  });
  it('ignores progress without a finite numeric percent', () => {
    for (const percent of ['60', null, Number.NaN, Number.POSITIVE_INFINITY, undefined]) {
      expect(progressAboveTrigger.evaluate(trigger, { percent }, task)).toBeUndefined();
    }
    expect(progressAboveTrigger.evaluate({ type: 'progress_above' }, { percent: 60 }, task)).toBeUndefined();
  });
  it('validates percent 0..100', () => {
    expect(progressAboveTrigger.validate?.({ type: 'progress_above', percent: 0 })).toEqual([]);
    expect(progressAboveTrigger.validate?.({ type: 'progress_above', percent: 100 })).toEqual([]);
    for (const percent of [-1, 101, '50', undefined, Number.NaN]) {
      expect(progressAboveTrigger.validate?.({ type: 'progress_above', percent })).toEqual([
        expect.stringMatching(/^percent: expected a number between 0 and 100, got /),
      ]);
    }
  });
});

describe('etaBelowTrigger', () => {
  const trigger: Trigger = { type: 'eta_below', seconds: 10 };
  it('fires when eta_s < seconds', () => {
    expect(etaBelowTrigger.evaluate(trigger, { eta_s: 10 }, task)).toBeUndefined();
    expect(etaBelowTrigger.evaluate(trigger, { eta_s: 9.4 }, task)).toEqual({ eta_s: 9.4 });
    expect(etaBelowTrigger.evaluate(trigger, { eta_s: '5' }, task)).toBeUndefined();
    expect(etaBelowTrigger.evaluate(trigger, { percent: 99 }, task)).toBeUndefined();
    expect(etaBelowTrigger.evaluate({ type: 'eta_below' }, { eta_s: 1 }, task)).toBeUndefined();
  });
  it('validates seconds >= 0', () => {
    expect(etaBelowTrigger.validate?.({ type: 'eta_below', seconds: 0 })).toEqual([]);
    expect(etaBelowTrigger.validate?.({ type: 'eta_below', seconds: -1 })).toEqual([
      'seconds: expected a number >= 0, got a number (-1)',
    ]);
    expect(etaBelowTrigger.validate?.({ type: 'eta_below' })).toEqual([
      'seconds: expected a number >= 0, got undefined',
    ]);
  });
});

describe('zoneEnteredTrigger', () => {
  const trigger: Trigger = { type: 'zone_entered', zone: 'kitchen' };
  it('fires when the progress zone equals zone', () => {
    expect(zoneEnteredTrigger.evaluate(trigger, { zone: 'corridor' }, task)).toBeUndefined();
    expect(zoneEnteredTrigger.evaluate(trigger, { zone: 'kitchen' }, task)).toEqual({ zone: 'kitchen' });
    expect(zoneEnteredTrigger.evaluate(trigger, {}, task)).toBeUndefined();
    expect(zoneEnteredTrigger.evaluate({ type: 'zone_entered', zone: 4 }, { zone: 4 }, task)).toBeUndefined();
  });
  it('validates zone as a non-empty string', () => {
    expect(zoneEnteredTrigger.validate?.(trigger)).toEqual([]);
    expect(zoneEnteredTrigger.validate?.({ type: 'zone_entered', zone: '' })).toEqual([
      expect.stringMatching(/^zone: expected a non-empty zone name/),
    ]);
  });
  it('describes itself', () => {
    for (const evaluator of [progressAboveTrigger, etaBelowTrigger, zoneEnteredTrigger]) {
      expect(typeof evaluator.description).toBe('string');
      expect(Object.isFrozen(evaluator)).toBe(true);
    }
  });
});
