/** The footer of a paged list: fetches the next page, disabled while it loads. */
export function LoadMoreButton({ onClick, pending }: { onClick: () => void; pending: boolean }) {
  return (
    <button type="button" className="button load-more" disabled={pending} onClick={onClick}>
      Load more
    </button>
  );
}
