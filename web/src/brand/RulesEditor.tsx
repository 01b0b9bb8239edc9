import { SelectField, TextField } from '../components/fields';
import { RULE_KINDS, RULE_SEVERITIES, type RuleKind } from '../../../src/core/brand-context';
import { rowKey, type RuleRow } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

/** Each kind as the form names it (docs/brand-check.md "Rules"). */
const KIND_LABELS: Record<RuleKind, string> = {
  banned_term: 'Never say (banned term)',
  preferred_term: 'Say instead (preferred term)',
  required_phrase: 'Always include (required phrase)',
  max_exclamations: 'At most n exclamation marks',
  max_emoji: 'At most n emoji',
  palette_only: 'Brand colors only',
  fonts_only: 'Brand fonts only',
};
const KIND_OPTIONS = RULE_KINDS.map((kind) => ({ value: kind, label: KIND_LABELS[kind] }));
const SEVERITY_OPTIONS = RULE_SEVERITIES.map((severity) => ({
  value: severity,
  label: severity === 'error' ? 'Error' : 'Warning',
}));

const quoted = (text: string) => `"${text.trim() || '…'}"`;

/** The rule in a line, as the Markdown format gives it to a model (src/core/brand-markdown.ts). */
export function ruleSummary(row: RuleRow): string {
  switch (row.kind) {
    case 'banned_term':
      return `Never say ${quoted(row.value)}.`;
    case 'preferred_term': {
      const instead = row.insteadOf
        .split('\n')
        .map((item) => item.trim())
        .filter((item) => item !== '');
      return `Say ${quoted(row.value)} instead of ${instead.length === 0 ? '…' : instead.map(quoted).join(', ')}.`;
    }
    case 'required_phrase':
      return `Always include ${quoted(row.value)}.`;
    case 'max_exclamations':
      return `At most ${row.value.trim() || 'n'} exclamation marks.`;
    case 'max_emoji':
      return `At most ${row.value.trim() || 'n'} emoji.`;
    case 'palette_only':
      return 'Use only the brand colors.';
    case 'fonts_only':
      return 'Use only the brand fonts.';
  }
}

/** What a row keeps of its value when its kind changes: text stays text, a count starts at 0. */
function valueFor(kind: RuleKind, row: RuleRow): Pick<RuleRow, 'value' | 'insteadOf'> {
  const counted = (k: RuleKind) => k === 'max_exclamations' || k === 'max_emoji';
  const valueless = (k: RuleKind) => k === 'palette_only' || k === 'fonts_only';
  if (valueless(kind)) return { value: '', insteadOf: '' };
  if (counted(kind)) return { value: counted(row.kind) ? row.value : '0', insteadOf: '' };
  return {
    value: counted(row.kind) || valueless(row.kind) ? '' : row.value,
    insteadOf: kind === 'preferred_term' ? row.insteadOf : '',
  };
}

export function RulesEditor({ value, onChange, errorAt, readOnly }: SectionProps<RuleRow[]>) {
  return (
    <>
      <p className="section-description">
        What copy must and must not do. The on-brand check reports each break: in the campaign editor as you
        type, to AI clients (the MCP tool <code>check_brand_compliance</code>) and to scripts. An error fails
        the check; a warning is reported only. The Markdown format lists the rules for models.
      </p>
      {value.length === 0 && <p className="empty">No rules yet.</p>}
      {value.map((row, index) => {
        const at = `rules[${String(index)}]`;
        const set = (change: Partial<RuleRow>) => {
          onChange(replaceAt(value, index, { ...row, ...change }));
        };
        const name = `rule ${String(index + 1)}`;
        return (
          <fieldset key={row.key} className="row-card row-rule">
            <legend className="visually-hidden">Rule {index + 1}</legend>
            <p className="rule-summary span-all">
              <span className="muted">Rule {index + 1}, as models read it: </span>
              <strong>{ruleSummary(row)}</strong>
            </p>
            <SelectField
              label="Kind"
              value={row.kind}
              options={KIND_OPTIONS}
              error={errorAt(`${at}.kind`)}
              onChange={(kind) => {
                set({ kind, ...valueFor(kind, row) });
              }}
            />
            <SelectField
              label="Severity"
              value={row.severity}
              options={SEVERITY_OPTIONS}
              error={errorAt(`${at}.severity`)}
              onChange={(severity) => {
                set({ severity });
              }}
            />
            <RuleValue row={row} at={at} errorAt={errorAt} set={set} />
            <TextField
              label="Message"
              value={row.message}
              placeholder="Optional"
              hint="What a finding says. Left empty, it is written from the rule."
              error={errorAt(`${at}.message`)}
              className="span-all"
              onChange={(message) => {
                set({ message });
              }}
            />
            {!readOnly && (
              <RowActions
                name={name}
                onRemove={() => {
                  onChange(removeAt(value, index));
                }}
              />
            )}
          </fieldset>
        );
      })}
      {!readOnly && (
        <AddButton
          label="Add rule"
          onClick={() => {
            onChange([
              ...value,
              {
                key: rowKey(),
                id: undefined,
                kind: 'banned_term',
                severity: 'error',
                value: '',
                insteadOf: '',
                message: '',
              },
            ]);
          }}
        />
      )}
    </>
  );
}

interface RuleValueProps {
  row: RuleRow;
  at: string;
  errorAt: (path: string) => string | undefined;
  set: (change: Partial<RuleRow>) => void;
}

/** The form of the row's kind: a term, a phrase, a word and what it replaces, a count, or nothing. */
function RuleValue({ row, at, errorAt, set }: RuleValueProps) {
  const setValue = (value: string) => {
    set({ value });
  };
  switch (row.kind) {
    case 'banned_term':
      return (
        <TextField
          label="Word or phrase never to use"
          value={row.value}
          placeholder="e.g. cheap"
          hint="Matched as whole words, in any case: “hurry” finds “Hurry!” but not “hurrying”."
          error={errorAt(`${at}.value`)}
          className="span-all"
          onChange={setValue}
        />
      );
    case 'required_phrase':
      return (
        <TextField
          label="Phrase the copy must contain"
          value={row.value}
          placeholder="e.g. Roasted in Lisbon"
          error={errorAt(`${at}.value`)}
          className="span-all"
          onChange={setValue}
        />
      );
    case 'preferred_term':
      return (
        <>
          <TextField
            label="Say"
            value={row.value}
            placeholder="e.g. coffee lovers"
            error={errorAt(`${at}.value.use`) ?? errorAt(`${at}.value`)}
            className="span-all"
            onChange={setValue}
          />
          <TextField
            label="Instead of"
            multiline
            rows={3}
            value={row.insteadOf}
            hint="One word or phrase per line."
            error={errorAt(`${at}.value.instead_of`)}
            className="span-all"
            onChange={(insteadOf) => {
              set({ insteadOf });
            }}
          />
        </>
      );
    case 'max_exclamations':
    case 'max_emoji':
      return (
        <TextField
          label="At most"
          value={row.value}
          inputMode="numeric"
          hint={
            row.kind === 'max_emoji'
              ? 'Emoji across subject, text and HTML; 👍🏽 and 👨‍👩‍👧 count as one each.'
              : 'Exclamation marks across subject, text and HTML.'
          }
          error={errorAt(`${at}.value`)}
          className="span-all"
          onChange={setValue}
        />
      );
    case 'palette_only':
      return (
        <p className="muted span-all">
          Colors in HTML and CSS must be one of the brand colors above (within ΔE2000 2).
        </p>
      );
    case 'fonts_only':
      return (
        <p className="muted span-all">
          Font families in HTML and CSS must be the heading or body font, their fallbacks, or a generic family
          such as sans-serif.
        </p>
      );
  }
}
