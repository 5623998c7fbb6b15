// What a form says when its save met 412: the thing changed elsewhere since the page read
// it; the edits are kept, and "Reload and retry" sends them again under the fresh ETag.
export function StaleNotice({ what, onRetry }: { what: string; onRetry: () => void }) {
  return (
    <div class="stale-etag" role="alert">
      <p>
        {what} changed elsewhere since this page read it. Your edits are kept: reload and send them again.
      </p>
      <button type="button" class="reload-retry" onClick={onRetry}>
        Reload and retry
      </button>
    </div>
  )
}
