import { createRequire } from 'node:module';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { DtoSchemaBuilder, validateArguments } from '@robot-mcp-kit/server/advanced';
import { EchoArgs, PlanArgs } from '../fixtures/bench.server.js';

type Dto = new () => object;
type Check = (input: unknown) => boolean;
type AjvClass = new (options: object) => { compile(schema: object): Check };
// Ajv 8, the JSON Schema validator the MCP SDK itself uses (the hoisted copy is eslint's Ajv 6).
const sdkRequire = createRequire(
  new URL('../../../node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url),
);
const { Ajv } = sdkRequire('ajv') as { Ajv: AjvClass };

/**
 * `node bench/dist/profile/validator.profile.js [rounds]`: three ways to validate a tool's
 * arguments, side by side in one process (interleaved rounds, median µs per call):
 * - `full`: class-transformer `plainToInstance` + class-validator `validate` (the reference);
 * - `kit`: the kit's `validateArguments` (the same two calls, after its JSON safety walk);
 * - `ajv`: the DTO's generated JSON Schema compiled by Ajv (public APIs only), then
 *   `plainToInstance` for the instance the tool method receives.
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
  if (!(await validateArguments(name, dto, input)) || !check(input))
    throw new Error(`${name}: a validator refused valid input`);
  const samples: Record<'full' | 'kit' | 'ajv', number[]> = { full: [], kit: [], ajv: [] };
  for (let round = 0; round < rounds; round += 1) {
    samples.full.push(await timed(() => validate(plainToInstance(dto, input), OPTIONS)));
    samples.kit.push(await timed(() => validateArguments(name, dto, input)));
    samples.ajv.push(await timed(() => check(input) && plainToInstance(dto, input)));
  }
  const [full, kit, viaAjv] = [median(samples.full), median(samples.kit), median(samples.ajv)];
  process.stdout.write(
    `${name}: full ${full.toFixed(2)} µs, kit ${kit.toFixed(2)} µs, ajv+instance ${viaAjv.toFixed(2)} µs\n`,
  );
}
process.stdout.write(`ajv: ${compileMs.toFixed(1)} ms to compile ${CASES.length} schemas\n`);
