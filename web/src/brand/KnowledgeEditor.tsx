import { plainOptions, SelectField, TextField } from '../components/fields';
import { KNOWLEDGE_KINDS } from '../../../src/core/brand-context';
import { type KnowledgeRow, rowKey } from './model';
import { AddButton, RowActions } from './RowActions';
import { move, removeAt, replaceAt, type SectionProps } from './rows';

export function KnowledgeEditor({ value, onChange, errorAt, readOnly }: SectionProps<KnowledgeRow[]>) {
  return (
    <>
      {value.length === 0 && <p className="empty">No knowledge entries yet.</p>}
      <ol className="row-list">
        {value.map((row, index) => {
          const at = `knowledge[${String(index)}]`;
          const set = (change: Partial<KnowledgeRow>) => {
            onChange(replaceAt(value, index, { ...row, ...change }));
          };
          return (
            <li key={row.key}>
              <fieldset className="row-card row-knowledge">
                <legend>Knowledge entry {index + 1}</legend>
                <SelectField
                  label="Kind"
                  value={row.kind}
                  options={plainOptions(KNOWLEDGE_KINDS)}
                  error={errorAt(`${at}.kind`)}
                  onChange={(kind) => {
                    set({ kind });
                  }}
                />
                <TextField
                  label="Title"
                  value={row.title}
                  error={errorAt(`${at}.title`)}
                  className="grow"
                  onChange={(title) => {
                    set({ title });
                  }}
                />
                <TextField
                  label="Content"
                  multiline
                  rows={3}
                  value={row.content}
                  error={errorAt(`${at}.content`)}
                  className="span-all"
                  onChange={(content) => {
                    set({ content });
                  }}
                />
                <TextField
                  label="Tags"
                  value={row.tags}
                  placeholder="history, origin"
                  hint="Separated by commas."
                  error={errorAt(`${at}.tags`)}
                  className="span-all"
                  onChange={(tags) => {
                    set({ tags });
                  }}
                />
                {!readOnly && (
                  <RowActions
                    name={`knowledge entry ${row.title || String(index + 1)}`}
                    first={index === 0}
                    last={index === value.length - 1}
                    onMove={(by) => {
                      onChange(move(value, index, by));
                    }}
                    onRemove={() => {
                      onChange(removeAt(value, index));
                    }}
                  />
                )}
              </fieldset>
            </li>
          );
        })}
      </ol>
      {!readOnly && (
        <AddButton
          label="Add knowledge entry"
          onClick={() => {
            onChange([
              ...value,
              { key: rowKey(), id: undefined, kind: 'fact', title: '', content: '', tags: '' },
            ]);
          }}
        />
      )}
    </>
  );
}
