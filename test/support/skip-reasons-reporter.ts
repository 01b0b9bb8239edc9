import type { Reporter, TestModule } from 'vitest/node';

/** The convention of describeEachBackend and the other suites that cannot always run: the reason ends the name. */
const SKIPPED = / — skipped: (.+)$/;

/**
 * Prints, after the run, why suites were skipped: the default reporter shows only a count, so without this a
 * run without TEST_DATABASE_URL (or without Chromium) would look complete. One line per reason, with how many
 * suites it skipped and one of them as an example.
 */
export default class SkipReasonsReporter implements Reporter {
  onTestRunEnd(testModules: readonly TestModule[]): void {
    const suitesByReason = new Map<string, string[]>();
    for (const testModule of testModules) {
      for (const suite of testModule.children.allSuites()) {
        const reason = SKIPPED.exec(suite.name)?.[1];
        if (reason === undefined || suite.state() !== 'skipped') continue;
        suitesByReason.set(reason, [...(suitesByReason.get(reason) ?? []), suite.name]);
      }
    }
    if (suitesByReason.size === 0) return;
    const lines = [...suitesByReason].map(
      ([reason, suites]) =>
        `  - ${reason}: ${String(suites.length)} suite${suites.length === 1 ? '' : 's'} skipped (e.g. "${(suites[0] ?? '').replace(SKIPPED, '')}")`,
    );
    process.stdout.write(`\nSkipped, and why:\n${lines.join('\n')}\n`);
  }
}
