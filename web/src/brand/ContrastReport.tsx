import { capitalize } from '../format';
import type { ColorRole } from '../../../src/core/brand-context';
import { AA_LARGE, AA_NORMAL, contrastPairs, ratioText } from './contrast';

const roleName = (role: ColorRole) => capitalize(role);

/**
 * The WCAG 2.2 contrast report of the brand's colors as typed (docs/brand-check.md "Contrast report"): each
 * text/background pair with a sample, its ratio, and whether it meets AA for normal and for large text.
 */
export function ContrastReport({ colors }: { colors: Record<ColorRole, string> }) {
  const pairs = contrastPairs(colors);
  return (
    <section aria-labelledby="contrast-report-heading" className="contrast-report">
      <h3 id="contrast-report-heading">Contrast (WCAG 2.2)</h3>
      <p className="section-description">
        Text on a background needs a ratio of {AA_NORMAL}:1 to meet AA, or {AA_LARGE}:1 for large text (18 pt,
        or 14 pt bold). Ratios are cut, never rounded up.
      </p>
      {pairs.length === 0 ? (
        <p className="empty">Set the text and background colors to see their contrast.</p>
      ) : (
        <div className="contrast-wrap">
          <table className="contrast-table" aria-labelledby="contrast-report-heading">
            <thead>
              <tr>
                <th scope="col">Pair</th>
                <th scope="col">Sample</th>
                <th scope="col">Ratio</th>
                <th scope="col">AA normal</th>
                <th scope="col">AA large</th>
              </tr>
            </thead>
            <tbody>
              {pairs.map((pair) => (
                <tr key={`${pair.foreground}/${pair.background}`}>
                  <th scope="row">
                    {roleName(pair.foreground)} on {roleName(pair.background).toLowerCase()}
                  </th>
                  <td data-label="Sample">
                    {/* Decorative, and drawn by CSS (content: attr()) so that a pair that fails is not
                        itself a contrast failure of the page: the ratio and verdicts say it in words. */}
                    <span
                      aria-hidden="true"
                      className="contrast-sample"
                      data-sample="Aa"
                      style={{ color: pair.foregroundHex, backgroundColor: pair.backgroundHex }}
                    />
                  </td>
                  <td data-label="Ratio">{ratioText(pair.ratio)}:1</td>
                  <td data-label="AA normal">
                    <Verdict pass={pair.normal} />
                  </td>
                  <td data-label="AA large">
                    <Verdict pass={pair.large} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Verdict({ pass }: { pass: boolean }) {
  return (
    <span className={pass ? 'verdict verdict-pass' : 'verdict verdict-fail'}>{pass ? 'Pass' : 'Fail'}</span>
  );
}
