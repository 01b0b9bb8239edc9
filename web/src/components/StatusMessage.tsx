/** A success notice ("Saved", "Copied"), announced politely; nothing at all while there is none. */
export function StatusMessage({ message }: { message: string | null }) {
  if (message === null) return null;
  return (
    <p role="status" className="status-message">
      {message}
    </p>
  );
}
