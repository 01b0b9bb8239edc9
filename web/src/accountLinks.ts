import { ApiError } from './api';

/** `seconds` as a person says it: "about an hour", "about 5 minutes", "a few seconds". */
export function waitInWords(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  if (minutes >= 60) {
    const hours = Math.round(minutes / 60);
    return hours === 1 ? 'about an hour' : `about ${String(hours)} hours`;
  }
  if (minutes >= 1) return minutes === 1 ? 'about a minute' : `about ${String(minutes)} minutes`;
  return 'a few seconds';
}

/**
 * An error of the pages that account email's links open (and the reset request), reworded for the person
 * following the link rather than for an API client: `newLink` says how to get a working link.
 */
export function linkPageError(error: ApiError | undefined, newLink: string): ApiError | undefined {
  if (error === undefined) return undefined;
  const reword = (detail: string, resolution: string) =>
    new ApiError(error.status, error.code, detail, resolution, error.fieldErrors, error.retryAfterSeconds);
  switch (error.code) {
    case 'link_invalid':
      return reword(error.detail, newLink);
    case 'rate_limited':
      return reword(
        `Too many requests: try again in ${waitInWords(error.retryAfterSeconds ?? 60)}.`,
        'This limit protects your account from people guessing links and addresses.',
      );
    case 'invalid_request':
      // Each field says what is wrong with it, under the field.
      return error.fieldErrors.length > 0 ? undefined : reword('Check the form and try again.', '');
    default:
      return error;
  }
}
