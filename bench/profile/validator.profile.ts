import { createRequire } from 'node:module';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DtoSchemaBuilder } from '@robot-mcp-kit/server/advanced';
import { EchoArgs, PlanArgs } from '../fixtures/bench.server.js';

type Dto = new () => object;
type Check = (input: unknown) => boolean;
type AjvClass = new (options: object) => { compile(schema: object): Check };
// Ajv 8, the JSON Schema validator the MCP SDK itself uses (the hoisted copy is eslint's Ajv 6).
const sdkRequire = createRequire(
  new URL('../../../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url),
);
const { Ajv } = sdkRequire('ajv') as { Ajv: AjvClass };
// The fast path is internal to the server package (not exported): loaded from its build.
const { fastValidate } = (await import(
  new URL('../../../packages/server/dist/schema/fast-dto.validator.js', import.meta.url).href
)) as { fastValidate: (dto: Dto, input: Record<string, unknown>) => object | undefined };

/**
 * `node bench/dist/profile/validator.profile.js [rounds]`: the three ways to validate a tool's
 * arguments, side by side in one process (interleaved rounds, median µs per call):
 * - `full`: class-transformer `plainToInstance` + class-validator `validate` (the reference);
 * - `fast`: the kit's fast path (`fast-dto.validator.ts`, reads class-validator's metadata);
 * - `ajv`: the DTO's generated JSON Schema compiled by Ajv (public APIs only), then
 *   `plainToInstance` for the instance the tool method receives.
 * It measured the decision recorded in docs/benchmarks.md ("Why the fast validator is pinned").
 */
const rounds = Number(process.argv[2] ?? 15);
const CALLS = 5_000;
const CASES: [string, Dto, Record<string, unknown>][] = [
  ['flat (echo)', EchoArgs, { text: 'hello robot', count: 3 }],
  ['array + nested (plan)', PlanArgs, { tags: ['a', 'b'], waypoints: [{ x: 1, y: 2 }] }],
];
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, forbidUnknownValues: true };

async function timed(run: () => unknown): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < CALLS; i += 1) await run();
  return ((performance.now() - started) * 1000) / CALLS;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const builder = new DtoSchemaBuilder();
const compileStarted = performance.now();
const ajv = new Ajv({ allErrors: true, strict: false });
const compiled = CASES.map(([, dto]) => ajv.compile(builder.build(dto)));
const compileMs = performance.now() - compileStarted;

for (const [index, [name, dto, input]] of CASES.entries()) {
  const check = compiled[index]!;
  if (!fastValidate(dto, input) || !check(input)) throw new Error(`${name}: a validator refused valid input`);
  const samples: Record<'full' | 'fast' | 'ajv', number[]> = { full: [], fast: [], ajv: [] };
  for (let round = 0; round < rounds; round += 1) {
    samples.full.push(await timed(() => validate(plainToInstance(dto, input), OPTIONS)));
    samples.fast.push(await timed(() => fastValidate(dto, input)));
    samples.ajv.push(await timed(() => check(input) && plainToInstance(dto, input)));
  }
  const [full, fast, viaAjv] = [median(samples.full), median(samples.fast), median(samples.ajv)];
  process.stdout.write(
    `${name}: full ${full.toFixed(2)} µs, fast ${fast.toFixed(2)} µs, ajv+instance ${viaAjv.toFixed(2)} µs\n`,
  );
}
process.stdout.write(`ajv: ${compileMs.toFixed(1)} ms to compile ${CASES.length} schemas\n`);
