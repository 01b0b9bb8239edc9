import type { ReactNode } from 'react';

/** A few facts of one thing, each a label over its value, laid out in as many columns as fit. */
export function Facts({ facts }: { facts: readonly (readonly [label: string, value: ReactNode])[] }) {
  return (
    <dl className="facts">
      {facts.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
