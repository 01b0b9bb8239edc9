import { useId } from 'react';
import { DataTable } from '../components/DataTable';
import { brandSectionTitle, type ChangeEntry, changeText, type SectionDiff, valueText } from './versions';

interface BrandDiffProps {
  /** The sections that changed, in the brand's order, each with its changes. */
  sections: readonly SectionDiff[];
  /** The column of the older side, "Version 3"; and of the newer, "Version 5" or "Draft". */
  fromLabel: string;
  toLabel: string;
}

function Value({ value, side }: { value: unknown; side: 'before' | 'after' }) {
  if (value === undefined) return <span className="muted">Not set</span>;
  return <span className={`diff-value diff-${side}`}>{valueText(value)}</span>;
}

/**
 * Two versions of the brand side by side, one table per section that changed: each change's field (a JSON
 * Pointer from the brand's root), what it was, and what it became. On phones each change is a card.
 */
export function BrandDiff({ sections, fromLabel, toLabel }: BrandDiffProps) {
  if (sections.length === 0)
    return (
      <p className="muted">
        No differences: {fromLabel.toLowerCase()} and {toLabel.toLowerCase()} hold the same brand.
      </p>
    );
  return (
    <div className="brand-diff">
      {sections.map((section) => (
        <SectionChanges key={section.section} section={section} fromLabel={fromLabel} toLabel={toLabel} />
      ))}
    </div>
  );
}

function SectionChanges({
  section,
  fromLabel,
  toLabel,
}: { section: SectionDiff } & Omit<BrandDiffProps, 'sections'>) {
  const headingId = useId();
  const title = brandSectionTitle(section.section);
  const rows = section.changes.map((change, index) => ({
    ...change,
    key: `${String(index)} ${change.path}`,
  }));
  return (
    <section aria-labelledby={headingId} className="diff-section">
      <h3 id={headingId}>{title}</h3>
      <DataTable
        name={`Changes to ${title}`}
        columns={[
          {
            header: 'Field',
            rowHeader: true,
            cell: (change: ChangeEntry) => (
              <span className="status-stack">
                <code className="wrap-anywhere">{change.path}</code>
                <span className="cell-detail">{changeText(change.op)}</span>
              </span>
            ),
          },
          {
            header: fromLabel,
            cell: (change) =>
              change.op === 'move' ? (
                <span>
                  At <code>{change.from}</code>
                </span>
              ) : (
                <Value value={change.before} side="before" />
              ),
          },
          {
            header: toLabel,
            cell: (change) =>
              change.op === 'move' ? (
                <span>
                  At <code>{change.path}</code>
                </span>
              ) : (
                <Value value={change.after} side="after" />
              ),
          },
        ]}
        rows={rows}
        rowKey={(row) => row.key}
      />
    </section>
  );
}
