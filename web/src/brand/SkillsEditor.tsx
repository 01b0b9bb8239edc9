import { TextField } from '../components/fields';
import { rowKey, type SkillRow } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

export function SkillsEditor({ value, onChange, errorAt, readOnly }: SectionProps<SkillRow[]>) {
  return (
    <>
      {value.length === 0 && <p className="empty">No skills yet.</p>}
      {value.map((row, index) => {
        const at = `skills[${String(index)}]`;
        const set = (change: Partial<SkillRow>) => {
          onChange(replaceAt(value, index, { ...row, ...change }));
        };
        return (
          <fieldset key={row.key} className="row-card row-skill">
            <legend>{row.name || `Skill ${String(index + 1)}`}</legend>
            <TextField
              label="Skill name"
              value={row.name}
              error={errorAt(`${at}.name`)}
              onChange={(name) => {
                set({ name });
              }}
            />
            <TextField
              label="Skill description"
              value={row.description}
              hint="When an AI client should use it."
              error={errorAt(`${at}.description`)}
              onChange={(description) => {
                set({ description });
              }}
            />
            <TextField
              label="Instructions"
              multiline
              rows={4}
              value={row.instructions}
              error={errorAt(`${at}.instructions`)}
              className="span-all"
              onChange={(instructions) => {
                set({ instructions });
              }}
            />
            {!readOnly && (
              <RowActions
                name={`skill ${row.name || String(index + 1)}`}
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
          label="Add skill"
          onClick={() => {
            onChange([
              ...value,
              { key: rowKey(), id: undefined, name: '', description: '', instructions: '' },
            ]);
          }}
        />
      )}
    </>
  );
}
