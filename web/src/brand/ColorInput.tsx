import { TextField } from '../components/fields';
import { HEX_COLOR } from '../../../src/core/brand-context';

interface ColorInputProps {
  /** "Primary color": the hex field is "{label} (hex)", the picker "{label} picker". */
  label: string;
  value: string;
  onChange: (value: string) => void;
  error: string | undefined;
  className?: string;
}

/** A #RRGGBB text field with a swatch of the colour and the browser's own colour picker. */
export function ColorInput({ label, value, onChange, error, className }: ColorInputProps) {
  const valid = HEX_COLOR.test(value.trim());
  return (
    <TextField
      label={`${label} (hex)`}
      value={value}
      onChange={onChange}
      error={error}
      placeholder="#RRGGBB"
      spellCheck={false}
      className={className}
      adornment={
        <>
          <span
            className={valid ? 'swatch' : 'swatch swatch-empty'}
            style={valid ? { backgroundColor: value.trim() } : undefined}
            aria-hidden="true"
          />
          <input
            type="color"
            className="color-picker"
            aria-label={`${label} picker`}
            value={valid ? value.trim().toLowerCase() : '#000000'}
            onChange={(event) => {
              onChange(event.target.value.toUpperCase());
            }}
          />
        </>
      }
    />
  );
}
