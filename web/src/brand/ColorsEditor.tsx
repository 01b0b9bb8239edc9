import { TextField } from '../components/fields';
import { capitalize } from '../format';
import { COLOR_ROLES } from '../../../src/core/brand-context';
import { ColorInput } from './ColorInput';
import { type BrandForm, rowKey } from './model';
import { AddButton, RowActions } from './RowActions';
import { removeAt, replaceAt, type SectionProps } from './rows';

type ColorsValue = Pick<BrandForm, 'colors' | 'palette'>;

export function ColorsEditor({ value, onChange, errorAt, readOnly }: SectionProps<ColorsValue>) {
  const { colors, palette } = value;
  return (
    <>
      <div className="color-grid">
        {COLOR_ROLES.map((role) => (
          <ColorInput
            key={role}
            label={`${capitalize(role)} color`}
            value={colors[role]}
            error={errorAt(`colors.${role}`)}
            onChange={(hex) => {
              onChange({ ...value, colors: { ...colors, [role]: hex } });
            }}
          />
        ))}
      </div>
      <h3>Palette</h3>
      <p className="section-description">
        Further named colours, e.g. for illustrations or seasonal campaigns.
      </p>
      {palette.map((row, index) => (
        <fieldset key={row.key} className="row-card row-palette">
          <legend className="visually-hidden">Palette color {index + 1}</legend>
          <TextField
            label="Palette color name"
            value={row.name}
            error={errorAt(`colors.palette[${String(index)}].name`)}
            onChange={(name) => {
              onChange({ ...value, palette: replaceAt(palette, index, { ...row, name }) });
            }}
          />
          <ColorInput
            label="Palette color"
            value={row.hex}
            error={errorAt(`colors.palette[${String(index)}].hex`)}
            onChange={(hex) => {
              onChange({ ...value, palette: replaceAt(palette, index, { ...row, hex }) });
            }}
          />
          <TextField
            label="Palette color role"
            value={row.role}
            placeholder="e.g. accent"
            error={errorAt(`colors.palette[${String(index)}].role`)}
            onChange={(role) => {
              onChange({ ...value, palette: replaceAt(palette, index, { ...row, role }) });
            }}
          />
          {!readOnly && (
            <RowActions
              name={`palette color ${row.name || String(index + 1)}`}
              onRemove={() => {
                onChange({ ...value, palette: removeAt(palette, index) });
              }}
            />
          )}
        </fieldset>
      ))}
      {!readOnly && (
        <AddButton
          label="Add palette color"
          onClick={() => {
            onChange({ ...value, palette: [...palette, { key: rowKey(), name: '', hex: '', role: '' }] });
          }}
        />
      )}
    </>
  );
}
