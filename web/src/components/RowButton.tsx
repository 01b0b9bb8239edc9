interface RowButtonProps {
  /** What the button does, shown: "Revoke". */
  action: string;
  /** What it does it to, said to assistive technology only: the name is "Revoke newsletter pipeline". */
  target: string;
  onClick: () => void;
  danger?: boolean;
  disabled?: boolean;
}

/** A table or list row's button: short on screen, fully named for screen readers and tests. */
export function RowButton({ action, target, onClick, danger = false, disabled = false }: RowButtonProps) {
  return (
    <button
      type="button"
      className={`button button-small ${danger ? 'button-danger-quiet' : 'button-quiet'}`}
      disabled={disabled}
      onClick={onClick}
    >
      {action}
      <span className="visually-hidden"> {target}</span>
    </button>
  );
}
