import type { BrandCheckResult } from '../../../src/contract/brand-check';
import type { BrandCheckField } from '../../../src/core/brand-check';
import { plural } from '../format';
import type { BrandCheckState } from '../useBrandCheck';

type Finding = BrandCheckResult['findings'][number];

/** The findings of one field, just below it: each its severity, message and what broke the rule. */
export function FieldFindings({
  state,
  field,
  label,
}: {
  state: BrandCheckState;
  field: BrandCheckField;
  label: string;
}) {
  const findings = state.result?.findings.filter((finding) => finding.field === field) ?? [];
  if (findings.length === 0) return null;
  return <FindingList findings={findings} label={`Brand check of ${label}`} />;
}

function FindingList({ findings, label }: { findings: readonly Finding[]; label: string }) {
  const errors = findings.some((finding) => finding.severity === 'error');
  return (
    <ul aria-label={label} className={errors ? 'check-findings has-errors' : 'check-findings'}>
      {findings.map((finding, index) => (
        <li
          // Offsets make a finding unique within a field; a missing phrase has none, but one per rule.
          key={`${finding.rule_id} ${String(finding.start)} ${String(index)}`}
          className="check-finding"
        >
          <strong>{finding.severity === 'error' ? 'Error' : 'Warning'}:</strong> {finding.message}
          {finding.excerpt !== '' && (
            <>
              {' '}
              <mark>{finding.excerpt}</mark>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/**
 * The check as a whole: a polite live status (checking, passed, how many findings) and the findings of no
 * field (a required phrase missing from all of the copy).
 */
export function BrandCheckSummary({ state }: { state: BrandCheckState }) {
  const { result, checking, error } = state;
  const unplaced = result?.findings.filter((finding) => finding.field === null) ?? [];
  const errors = result?.findings.filter((finding) => finding.severity === 'error').length ?? 0;
  const warnings = (result?.findings.length ?? 0) - errors;
  let status: string;
  if (error !== undefined)
    status =
      error.code === 'rate_limited'
        ? `Brand check paused: too many checks. It runs again when you type${error.retryAfterSeconds === undefined ? '' : ` after ${String(error.retryAfterSeconds)} s`}.`
        : `Brand check unavailable: ${error.detail}`;
  else if (result === undefined) status = checking ? 'Checking against the brand…' : '';
  else if (result.findings.length === 0)
    status = `On brand: no findings (brand version ${String(result.version)}).`;
  else
    status = `${result.passed ? 'Passes' : 'Does not pass'} the brand check: ${[
      errors > 0 ? plural(errors, 'error') : '',
      warnings > 0 ? plural(warnings, 'warning') : '',
    ]
      .filter(Boolean)
      .join(', ')} (brand version ${String(result.version)}).`;
  return (
    <section aria-labelledby="brand-check-heading" className="brand-check">
      <h2 id="brand-check-heading" className="visually-hidden">
        Brand check
      </h2>
      {/* As the console's other notices: a status only while there is something to say. */}
      {status !== '' && (
        <p role="status" className="check-status muted">
          {status}
        </p>
      )}
      {unplaced.length > 0 && <FindingList findings={unplaced} label="Brand check of the whole draft" />}
    </section>
  );
}
