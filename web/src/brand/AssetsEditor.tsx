import { plainOptions, SelectField, TextField } from '../components/fields';
import { ASSET_KINDS } from '../../../src/core/brand-context';
import { type AssetRow, rowKey } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

const NEW_ASSET: Omit<AssetRow, 'key'> = {
  id: undefined,
  kind: 'logo',
  name: '',
  url: '',
  mime_type: '',
  width: '',
  height: '',
  bytes: '',
  variant: '',
  background: '',
  alt: '',
};

type TextKey = Exclude<keyof AssetRow, 'key' | 'id' | 'kind'>;

/** The asset's text fields in reading order, with their labels. */
const FIELDS: { key: TextKey; label: string; placeholder?: string; numeric?: boolean; wide?: boolean }[] = [
  { key: 'name', label: 'Asset name' },
  { key: 'url', label: 'Asset URL', placeholder: 'https://…/logo.svg', wide: true },
  { key: 'mime_type', label: 'MIME type', placeholder: 'image/svg+xml' },
  { key: 'width', label: 'Width (px)', numeric: true },
  { key: 'height', label: 'Height (px)', numeric: true },
  { key: 'bytes', label: 'Size (bytes)', numeric: true },
  { key: 'variant', label: 'Variant', placeholder: 'primary, mono…' },
  { key: 'background', label: 'Background', placeholder: 'light, dark…' },
  { key: 'alt', label: 'Alt text', wide: true },
];

export function AssetsEditor({ value, onChange, errorAt, readOnly }: SectionProps<AssetRow[]>) {
  return (
    <>
      {value.length === 0 && <p className="empty">No assets yet.</p>}
      {value.map((row, index) => {
        const at = `assets[${String(index)}]`;
        return (
          <fieldset key={row.key} className="row-card row-asset">
            <legend>{row.name || `Asset ${String(index + 1)}`}</legend>
            <SelectField
              label="Asset kind"
              value={row.kind}
              options={plainOptions(ASSET_KINDS)}
              error={errorAt(`${at}.kind`)}
              onChange={(kind) => {
                onChange(replaceAt(value, index, { ...row, kind }));
              }}
            />
            {FIELDS.map((field) => (
              <TextField
                key={field.key}
                label={field.label}
                value={row[field.key]}
                error={errorAt(`${at}.${field.key}`)}
                className={field.wide ? 'span-all' : undefined}
                {...(field.placeholder !== undefined && { placeholder: field.placeholder })}
                {...(field.numeric && { inputMode: 'numeric' as const })}
                onChange={(text) => {
                  onChange(replaceAt(value, index, { ...row, [field.key]: text }));
                }}
              />
            ))}
            {!readOnly && (
              <RowActions
                name={`asset ${row.name || String(index + 1)}`}
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
          label="Add asset"
          onClick={() => {
            onChange([...value, { key: rowKey(), ...NEW_ASSET }]);
          }}
        />
      )}
    </>
  );
}
