import { useMemo, useState } from 'react';
import type { BrandContext } from '../../../src/core/brand-context';
import type { BrandFormat } from '../../../src/core/brand-views';
import { CodeBlock } from '../components/CodeBlock';
import { Tabs } from '../components/Tabs';
import type { BrandDocument } from './model';
import { accept, previewFormats } from './preview';
import { useTokenCounts } from './tokenCount';

const FORMAT_TITLES: Record<BrandFormat, string> = {
  json: 'JSON',
  markdown: 'Markdown',
  dtcg: 'Design tokens',
};

/** What a format's request adds to the read operation's body (JSON is the default: nothing). */
function formatOption(format: BrandFormat) {
  return format === 'json' ? (
    <>
      The default: no <code>format</code> in the request.
    </>
  ) : (
    <>
      With <code>"format": "{format}"</code> in the request.
    </>
  );
}

/** The count of the `index`th text, as its tab says it. */
function tokenCount(counts: number[] | null | undefined, index: number): string {
  if (counts === undefined) return 'counting…';
  const count = counts?.[index];
  return count === undefined ? 'not counted' : `${count.toLocaleString('en-US')} tokens`;
}

/** The preview's heading: the brand sections' "Preview" link takes focus there. */
export const PREVIEW_HEADING_ID = 'brand-preview-heading';

interface BrandPreviewProps {
  document: BrandDocument;
  saved: BrandContext;
  changed: boolean;
  /** A version of the history: what a read pinned to it returns, rather than the latest. */
  pinned?: boolean;
  /** With review on, what the form holds reaches readers once a draft of it is published. */
  reviewed?: boolean;
}

/**
 * The read operation's answer in each format for the form as it stands, rendered by the service's own code,
 * with the tokens each costs a model. While the form holds what the service would refuse, the tabs keep the
 * last brand it would accept, and a warning above them names each refused field as the service would.
 */
export function BrandPreview({
  document,
  saved,
  changed,
  pinned = false,
  reviewed = false,
}: BrandPreviewProps) {
  const acceptance = useMemo(() => accept(document), [document]);
  const current = useMemo(
    () => ('accepted' in acceptance ? { document: acceptance.accepted, changed } : undefined),
    [acceptance, changed],
  );
  // Kept while rendering (React's pattern for information from previous renders), so the tabs never blink.
  const [lastAccepted, setLastAccepted] = useState(current);
  if (current !== undefined && current !== lastAccepted) setLastAccepted(current);
  const shown = current ?? lastAccepted;
  const formats = useMemo(
    () => (shown === undefined ? [] : previewFormats(shown.document, saved, shown.changed)),
    [shown, saved],
  );
  const counts = useTokenCounts(useMemo(() => formats.map((preview) => preview.sent), [formats]));
  return (
    <section aria-labelledby={PREVIEW_HEADING_ID} className="brand-preview">
      <h2 id={PREVIEW_HEADING_ID} tabIndex={-1}>
        Preview
      </h2>
      <p className="section-description">
        What <code>POST /functions/v1/brand-agent</code> returns{' '}
        {pinned ? (
          <>
            with <code>"version": {saved.version}</code>
          </>
        ) : reviewed ? (
          'once the draft is published'
        ) : changed ? (
          'once you save'
        ) : (
          'now'
        )}
        . Tokens are what a model reads of each answer, counted with o200k (the tokenizer of GPT-4o); JSON is
        counted as sent, without the indentation shown here.
      </p>
      {'refused' in acceptance && (
        <div className="callout callout-warning preview-refused">
          <p>The service would refuse this brand:</p>
          <ul>
            {acceptance.refused.map(({ field, message }) => (
              <li key={`${field} ${message}`}>
                <code>{field}</code> {message}
              </li>
            ))}
          </ul>
          <p>
            {shown === undefined
              ? 'There is nothing to preview until you fix it.'
              : 'Until you fix it, the tabs show your last edit it would accept.'}
          </p>
        </div>
      )}
      {formats.length > 0 && (
        <Tabs
          label="Preview format"
          tabs={formats.map(({ format, shown: text }, index) => ({
            id: format,
            label: (
              <>
                <span>{FORMAT_TITLES[format]}</span>
                <span className="tab-detail">{tokenCount(counts, index)}</span>
              </>
            ),
            panel: (
              <>
                <p className="tab-panel-note">{formatOption(format)}</p>
                <CodeBlock label={`${FORMAT_TITLES[format]} response preview`}>{text}</CodeBlock>
              </>
            ),
          }))}
        />
      )}
    </section>
  );
}
