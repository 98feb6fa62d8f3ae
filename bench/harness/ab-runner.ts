import { microsSince } from './stats.js';

/** One side of an A/B comparison: a round returns its samples in microseconds per operation. */
export interface BenchSide {
  readonly name: string;
  round(): Promise<number[]>;
  /** Operations in the last round, when a round reports fewer samples than it did (batches). */
  opsPerRound?(): number;
  /** Process CPU µs of the last round's timed part, when the round also does untimed work. */
  cpuOfLastRound?(): number;
}

/** How many rounds to run, after how many discarded warm-up rounds. */
export interface RoundPlan {
  readonly warmupRounds: number;
  readonly rounds: number;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Collects garbage if the process runs with `--expose-gc` (before a comparison, and between store rounds). */
export function collectGarbage(): void {
  gc?.();
}

/** The samples of both sides: wall µs per op, and the process CPU µs per op of each round. */
export interface InterleavedSamples {
  readonly subject: number[];
  readonly baseline: number[];
  readonly cpu: { readonly subject: number[]; readonly baseline: number[] };
}

/**
 * Runs `subject` and `baseline` in the same process, warm-up first, then in alternating rounds
 * (A B, B A, A B, ...) so that drift — JIT, heap growth, a noisy neighbour — hits both alike.
 * Each round's process CPU time (user + system, every thread) is divided by its operations: on a
 * shared machine CPU time moves less than wall time, since waiting for a core is not counted.
 */
export async function interleave(
  subject: BenchSide,
  baseline: BenchSide,
  plan: RoundPlan,
): Promise<InterleavedSamples> {
  // One collection before the warm-up, none between rounds: a forced full GC leaves the heap
  // cold (young generation shrunk, allocation feedback reset), and the rounds after it ran 1.3-2x
  // slower on both sides, so per-round collections timed heap warm-up, not the steady state a
  // server runs in. Each side pays its own scavenges inside its own rounds; the alternating
  // order spreads old-generation collections over both sides alike.
  collectGarbage();
  for (let i = 0; i < plan.warmupRounds; i += 1) {
    await subject.round();
    await baseline.round();
  }
  const samples: InterleavedSamples = { subject: [], baseline: [], cpu: { subject: [], baseline: [] } };
  for (let r = 0; r < plan.rounds; r += 1) {
    const order: Array<'subject' | 'baseline'> =
      r % 2 === 0 ? ['subject', 'baseline'] : ['baseline', 'subject'];
    for (const which of order) {
      const side = which === 'subject' ? subject : baseline;
      const cpuBefore = process.cpuUsage();
      const round = await side.round();
      const cpu = process.cpuUsage(cpuBefore);
      samples[which].push(...round);
      const cpuUs = side.cpuOfLastRound?.() ?? cpu.user + cpu.system;
      samples.cpu[which].push(cpuUs / (side.opsPerRound?.() ?? round.length));
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
  let cpuUs = 0;
  return {
    name,
    async round() {
      const samples: number[] = [];
      const cpuBefore = process.cpuUsage();
      for (let i = 0; i < count; i += 1) {
        const start = process.hrtime.bigint();
        await op();
        samples.push(microsSince(start));
      }
      const cpu = process.cpuUsage(cpuBefore);
      cpuUs = cpu.user + cpu.system;
      await after?.();
      return samples;
    },
    cpuOfLastRound: () => cpuUs,
  };
}

/** A round that does a batch of operations and reports one sample: elapsed µs / operations done. */
export function batchSide(name: string, batch: () => Promise<number>): BenchSide {
  let last = 1;
  return {
    name,
    async round() {
      const start = process.hrtime.bigint();
      const done = await batch();
      last = done;
      return [microsSince(start) / done];
    },
    opsPerRound: () => last,
  };
}
