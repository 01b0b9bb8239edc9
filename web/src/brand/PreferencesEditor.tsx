import { SelectField, TextField } from '../components/fields';
import { PREFERENCE_TYPES, type PreferenceRow, type PreferenceType, rowKey } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

const TYPE_LABELS: Record<PreferenceType, string> = {
  text: 'Text',
  number: 'Number',
  boolean: 'Yes or no',
  list: 'List',
  none: 'Empty (null)',
};
const TYPE_OPTIONS = PREFERENCE_TYPES.map((type) => ({ value: type, label: TYPE_LABELS[type] }));
const BOOLEAN_OPTIONS = [
  { value: 'true', label: 'Yes (true)' },
  { value: 'false', label: 'No (false)' },
] as const;

export function PreferencesEditor({ value, onChange, errorAt, readOnly }: SectionProps<PreferenceRow[]>) {
  return (
    <>
      {value.length === 0 && <p className="empty">No preferences yet.</p>}
      {value.map((row, index) => {
        const set = (change: Partial<PreferenceRow>) => {
          onChange(replaceAt(value, index, { ...row, ...change }));
        };
        const name = row.name.trim();
        const valueError = errorAt(`preferences.${name}`);
        return (
          <fieldset key={row.key} className="row-card row-preference">
            <legend className="visually-hidden">Preference {name || String(index + 1)}</legend>
            <TextField
              label="Preference"
              value={row.name}
              placeholder="sign_off"
              spellCheck={false}
              error={errorAt(`preferences[${String(index)}].name`)}
              onChange={(next) => {
                set({ name: next });
              }}
            />
            <SelectField
              label="Type"
              value={row.type}
              options={TYPE_OPTIONS}
              onChange={(type) => {
                // A yes/no starts as "false" rather than as whatever text was there.
                set({ type, value: type === 'boolean' ? 'false' : row.value });
              }}
            />
            {row.type === 'boolean' ? (
              <SelectField
                label="Value"
                value={row.value === 'true' ? 'true' : 'false'}
                options={BOOLEAN_OPTIONS}
                error={valueError}
                className="span-all"
                onChange={(next) => {
                  set({ value: next });
                }}
              />
            ) : row.type === 'none' ? (
              <p className="muted span-all">No value: the preference is null.</p>
            ) : (
              <TextField
                label="Value"
                value={row.value}
                multiline={row.type === 'list'}
                rows={3}
                inputMode={row.type === 'number' ? 'numeric' : 'text'}
                hint={row.type === 'list' ? 'One item per line.' : undefined}
                error={valueError}
                className="span-all"
                onChange={(next) => {
                  set({ value: next });
                }}
              />
            )}
            {!readOnly && (
              <RowActions
                name={`preference ${name || String(index + 1)}`}
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
          label="Add preference"
          onClick={() => {
            onChange([...value, { key: rowKey(), name: '', type: 'text', value: '' }]);
          }}
        />
      )}
    </>
  );
}
