import { plainOptions, SelectField, TextField } from '../components/fields';
import { capitalize } from '../format';
import { FONT_SLOTS, FONT_SOURCES } from '../../../src/core/brand-context';
import { type BrandForm, type FontForm } from './model';
import type { SectionProps } from './rows';

export function FontsEditor({ value, onChange, errorAt }: SectionProps<BrandForm['fonts']>) {
  return (
    <div className="font-grid">
      {FONT_SLOTS.map((slot) => {
        const font = value[slot];
        const label = `${capitalize(slot)} font`;
        const path = `fonts.${slot}`;
        const set = (change: Partial<FontForm>) => {
          onChange({ ...value, [slot]: { ...font, ...change } });
        };
        return (
          <fieldset key={slot} className="row-card">
            <legend>{label}</legend>
            <TextField
              label={`${label} family`}
              value={font.family}
              placeholder={slot === 'heading' ? 'e.g. Fraunces' : 'e.g. Inter'}
              error={errorAt(`${path}.family`)}
              onChange={(family) => {
                set({ family });
              }}
            />
            <TextField
              label={`${label} weights`}
              value={font.weights}
              placeholder="400, 700"
              hint="Separated by commas."
              inputMode="numeric"
              error={errorAt(`${path}.weights`)}
              onChange={(weights) => {
                set({ weights });
              }}
            />
            <TextField
              label={`${label} fallback`}
              value={font.fallback}
              placeholder="Georgia, serif"
              hint="Font families to use meanwhile or instead, separated by commas."
              error={errorAt(`${path}.fallback`)}
              onChange={(fallback) => {
                set({ fallback });
              }}
            />
            <SelectField
              label={`${label} source`}
              value={font.source}
              options={plainOptions(FONT_SOURCES)}
              error={errorAt(`${path}.source`)}
              onChange={(source) => {
                set({ source });
              }}
            />
            <TextField
              label={`${label} URL`}
              type="url"
              value={font.url}
              placeholder="https://…"
              hint="Where to load it from, if not from the source itself."
              error={errorAt(`${path}.url`)}
              onChange={(url) => {
                set({ url });
              }}
            />
          </fieldset>
        );
      })}
    </div>
  );
}
