import { useEffect, useState } from 'react';
import { type ApiError, api, toApiError, url } from './api';
import type { BrandCheckResult } from '../../src/contract/brand-check';
import type { BrandCheckContent } from '../../src/core/brand-check';

/** How long typing must pause before the copy is checked (docs/brand-check.md "In the console"). */
export const CHECK_DELAY_MS = 400;

export interface BrandCheckState {
  /** The last answer, kept while the next check runs so findings do not blink. */
  result: BrandCheckResult | undefined;
  /** What the copy was when `result` was computed: offsets point into it. */
  checked: BrandCheckContent | undefined;
  checking: boolean;
  error: ApiError | undefined;
}

/**
 * The on-brand check of copy as it is typed: `POST /functions/v1/brand-check` with the console's session,
 * once typing has paused for CHECK_DELAY_MS. Each check spends one read of the user's read budget, so
 * nothing is sent while the copy is unchanged; an answer to copy since changed is dropped.
 */
export function useBrandCheck(
  workspaceId: string,
  content: BrandCheckContent,
  enabled = true,
): BrandCheckState {
  const [state, setState] = useState<BrandCheckState>({
    result: undefined,
    checked: undefined,
    checking: false,
    error: undefined,
  });
  const { subject, text, html } = content;
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    const checked: BrandCheckContent = { subject, text, html };
    const timer = window.setTimeout(() => {
      setState((previous) => ({ ...previous, checking: true }));
      api
        .post(
          url('/functions/v1/brand-check'),
          { workspace_id: workspaceId, content: checked },
          // A refusal of the check is shown beside the form; an ended session is noticed by the page's own calls.
          { endSessionOn401: false },
        )
        .then(
          (result) => {
            if (current) setState({ result, checked, checking: false, error: undefined });
          },
          (failure: unknown) => {
            if (current)
              setState((previous) => ({ ...previous, checking: false, error: toApiError(failure) }));
          },
        );
    }, CHECK_DELAY_MS);
    return () => {
      current = false;
      window.clearTimeout(timer);
    };
  }, [workspaceId, subject, text, html, enabled]);
  return state;
}
