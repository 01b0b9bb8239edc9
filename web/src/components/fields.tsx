import { type ChangeEvent, type ReactNode, useId } from 'react';

interface FieldShellProps {
  id: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  className?: string | undefined;
  children: ReactNode;
}

/** Label above, control, then hint and error below; the control names them in aria-describedby. */
function FieldShell({ id, label, hint, error, className, children }: FieldShellProps) {
  return (
    <div className={`field${error === undefined ? '' : ' field-invalid'}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint !== undefined && (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      )}
      {error !== undefined && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

function describedBy(id: string, hint: unknown, error: string | undefined): string | undefined {
  const ids = [hint === undefined ? null : `${id}-hint`, error === undefined ? null : `${id}-error`];
  const joined = ids.filter((part) => part !== null).join(' ');
  return joined === '' ? undefined : joined;
}

interface TextFieldProps {
  label: string;
  value: string;
  onChange?: (value: string) => void;
  error?: string | undefined;
  hint?: ReactNode;
  multiline?: boolean;
  rows?: number;
  type?: 'text' | 'email' | 'password' | 'url' | 'number';
  readOnly?: boolean;
  required?: boolean;
  autoComplete?: string;
  placeholder?: string;
  min?: number;
  max?: number;
  inputMode?: 'numeric' | 'text';
  spellCheck?: boolean;
  /** The id of a <datalist> of suggestions. */
  list?: string;
  className?: string;
  /** Renders after the input, inside the field (a colour swatch and picker). */
  adornment?: ReactNode;
}

export function TextField({
  label,
  value,
  onChange,
  error,
  hint,
  multiline = false,
  rows = 4,
  className,
  adornment,
  type = 'text',
  ...rest
}: TextFieldProps) {
  const id = useId();
  const common = {
    id,
    value,
    'aria-invalid': error === undefined ? undefined : true,
    'aria-describedby': describedBy(id, hint, error),
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => {
      onChange?.(event.target.value);
    },
    ...rest,
  };
  return (
    <FieldShell id={id} label={label} hint={hint} error={error} className={className}>
      {multiline ? (
        <textarea rows={rows} {...common} />
      ) : adornment === undefined ? (
        <input type={type} {...common} />
      ) : (
        <div className="input-row">
          <input type={type} {...common} />
          {adornment}
        </div>
      )}
    </FieldShell>
  );
}

interface SelectFieldProps<T extends string> {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  onChange: (value: T) => void;
  error?: string | undefined;
  hint?: ReactNode;
  className?: string;
}

export function SelectField<T extends string>({
  label,
  value,
  options,
  onChange,
  error,
  hint,
  className,
}: SelectFieldProps<T>) {
  const id = useId();
  return (
    <FieldShell id={id} label={label} hint={hint} error={error} className={className}>
      <select
        id={id}
        value={value}
        aria-invalid={error === undefined ? undefined : true}
        aria-describedby={describedBy(id, hint, error)}
        onChange={(event) => {
          // The options are exactly `options`, so the value is one of theirs.
          onChange(event.target.value as T);
        }}
      >
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </FieldShell>
  );
}

/** Options whose label is the value itself, for short enums like knowledge kinds. */
export function plainOptions<T extends string>(values: readonly T[]): { value: T; label: string }[] {
  return values.map((value) => ({ value, label: value }));
}
