import { microsSince } from './stats.js';

/** One side of an A/B comparison: a round returns its samples in microseconds per operation. */
export interface BenchSide {
  readonly name: string;
  round(): Promise<number[]>;
}

/** How many rounds to run, after how many discarded warm-up rounds. */
export interface RoundPlan {
  readonly warmupRounds: number;
  readonly rounds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Collects garbage if the process runs with `--expose-gc`, so one side never pays for the other. */
export function collectGarbage(): void {
  gc?.();
}

/**
 * Runs `subject` and `baseline` in the same process, warm-up first, then in alternating rounds
 * (A B, B A, A B, ...) so that drift — JIT, heap growth, a noisy neighbour — hits both alike.
 */
export async function interleave(
  subject: BenchSide,
  baseline: BenchSide,
  plan: RoundPlan,
): Promise<{ subject: number[]; baseline: number[] }> {
  for (let i = 0; i < plan.warmupRounds; i += 1) {
    await subject.round();
    await baseline.round();
  }
  const samples = { subject: [] as number[], baseline: [] as number[] };
  for (let r = 0; r < plan.rounds; r += 1) {
    const order: Array<'subject' | 'baseline'> =
      r % 2 === 0 ? ['subject', 'baseline'] : ['baseline', 'subject'];
    for (const which of order) {
      collectGarbage();
      const side = which === 'subject' ? subject : baseline;
      samples[which].push(...(await side.round()));
    }
  }
  return samples;
}

/**
 * A round of `count` sequential operations, each timed on its own (µs per op), then the untimed
 * `after` (clean-up that belongs to no single operation, e.g. letting started tasks finish).
 */
export function perOpSide(
  name: string,
  count: number,
  op: () => Promise<unknown>,
  after?: () => Promise<void>,
): BenchSide {
  return {
    name,
    async round() {
      const samples: number[] = [];
      for (let i = 0; i < count; i += 1) {
        const start = process.hrtime.bigint();
        await op();
        samples.push(microsSince(start));
      }
      await after?.();
      return samples;
    },
  };
}

/** A round that does a batch of operations and reports one sample: elapsed µs / operations done. */
export function batchSide(name: string, batch: () => Promise<number>): BenchSide {
  return {
    name,
    async round() {
      const start = process.hrtime.bigint();
      const done = await batch();
      return [microsSince(start) / done];
    },
  };
}
