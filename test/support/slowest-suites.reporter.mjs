// Jest reporter: after the run, prints the slowest test suites (wall time of each file), so CI
// logs show where the time goes. `SLOWEST_SUITES=N` sets how many (default 10; 0 turns it off).
export default class SlowestSuitesReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.count = Number(process.env.SLOWEST_SUITES ?? 10);
    this.started = Date.now();
  }

  onRunStart() {
    this.started = Date.now();
  }

  onRunComplete(_contexts, results) {
    if (!(this.count > 0)) return;
    const suites = results.testResults
      .map((suite) => ({
        file: suite.testFilePath.startsWith(this.rootDir)
          ? suite.testFilePath.slice(this.rootDir.length + 1)
          : suite.testFilePath,
        ms: suite.perfStats.end - suite.perfStats.start,
        failed: suite.numFailingTests > 0 || suite.testExecError !== undefined,
      }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, this.count);
    const wall = ((Date.now() - this.started) / 1000).toFixed(1);
    const lines = suites.map(
      ({ file, ms, failed }) =>
        `${(ms / 1000).toFixed(1).padStart(7)} s  ${file}${failed ? '  (failed)' : ''}`,
    );
    process.stderr.write(
      `\nSlowest ${suites.length} test suites (Jest wall time ${wall} s):\n${lines.join('\n')}\n`,
    );
  }
}
