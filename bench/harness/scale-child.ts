/** The arguments a scale child is forked with: `<tasks> <stepMs> <inFlight> [receiverUrl]`. */
export interface ScaleChildArgs {
  readonly tasks: number;
  readonly stepMs: number;
  readonly inFlight: number;
  readonly receiverUrl: string | undefined;
}

export function scaleChildArgs(argv: readonly string[] = process.argv): ScaleChildArgs {
  return {
    tasks: Number(argv[2] ?? 10_000),
    stepMs: Number(argv[3] ?? 300),
    inFlight: Number(argv[4] ?? 64),
    receiverUrl: argv[5],
  };
}

/** Sends the child's result to the parent (exit code 0), or writes why it failed (exit code 1). */
export function reportToParent(what: string, result: Promise<unknown>): void {
  result.then(
    (value) => {
      process.send?.(value);
      process.exitCode = 0;
    },
    (err: unknown) => {
      process.stderr.write(
        `${what} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
