import { useMemo } from 'react';
import type { BrandContext } from '../../../src/contract/brand-context';
import type { BrandFormat } from '../../../src/contract/brand-views';
import { CodeBlock } from '../components/CodeBlock';
import { Tabs } from '../components/Tabs';
import type { BrandDocument } from './model';
import { previewFormats } from './preview';
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

interface BrandPreviewProps {
  document: BrandDocument;
  saved: BrandContext;
  changed: boolean;
}

/**
 * The read operation's answer in each format for the form as it stands, rendered by the service's own code,
 * with the tokens each costs a model.
 */
export function BrandPreview({ document, saved, changed }: BrandPreviewProps) {
  const formats = useMemo(() => previewFormats(document, saved, changed), [document, saved, changed]);
  const counts = useTokenCounts(useMemo(() => formats.map((preview) => preview.sent), [formats]));
  return (
    <section aria-labelledby="preview-heading" className="brand-preview">
      <h2 id="preview-heading">Preview</h2>
      <p className="section-description">
        What <code>POST /functions/v1/brand-agent</code> returns {changed ? 'once you save' : 'now'}. Tokens
        are what a model reads of each answer, counted with o200k (the tokenizer of GPT-4o); JSON is counted
        as sent, without the indentation shown here.
      </p>
      <Tabs
        label="Preview format"
        tabs={formats.map(({ format, shown }, index) => ({
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
              <CodeBlock label={`${FORMAT_TITLES[format]} response preview`}>{shown}</CodeBlock>
            </>
          ),
        }))}
      />
    </section>
  );
}
