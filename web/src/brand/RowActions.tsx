import { RowButton } from '../components/RowButton';

interface RowActionsProps {
  /** How the row is named in its buttons, e.g. "knowledge entry Founded". */
  name: string;
  onRemove: () => void;
  /** Reordering, for lists whose order means something (knowledge). */
  onMove?: ((by: -1 | 1) => void) | undefined;
  first?: boolean;
  last?: boolean;
}

export function RowActions({ name, onRemove, onMove, first = false, last = false }: RowActionsProps) {
  return (
    <div className="row-actions">
      {onMove !== undefined && (
        <>
          <RowButton
            action="Move up"
            target={name}
            disabled={first}
            onClick={() => {
              onMove(-1);
            }}
          />
          <RowButton
            action="Move down"
            target={name}
            disabled={last}
            onClick={() => {
              onMove(1);
            }}
          />
        </>
      )}
      <RowButton action="Remove" target={name} danger onClick={onRemove} />
    </div>
  );
}

export function AddButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <button type="button" className="button button-small add-row" onClick={onClick}>
      <span aria-hidden="true">+ </span>
      {label}
    </button>
  );
}
