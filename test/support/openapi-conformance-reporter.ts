import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints, after the run, how many responses were checked against /openapi.json
 * (test/support/openapi-conformance.ts), so that a run shows the check ran and on how much.
 */
export default class OpenApiConformanceReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    let validated = 0;
    let outside = 0;
    let files = 0;
    for (const testModule of testModules) {
      const tally = testModule.meta().openapi;
      if (tally === undefined || tally.validated + tally.outside === 0) continue;
      validated += tally.validated;
      outside += tally.outside;
      files += 1;
    }
    if (files === 0) return;
    process.stdout.write(
      `\nOpenAPI conformance: ${validated.toLocaleString('en')} responses checked against /openapi.json in ${String(files)} test files (${outside.toLocaleString('en')} more to requests no operation names: pages, unknown paths, other methods).\n`,
    );
  }
}
