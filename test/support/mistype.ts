/** `text` with its last character changed (never to itself): a typo, or a key whose checksum no longer holds. */
export function mistype(text: string): string {
  return `${text.slice(0, -1)}${text.endsWith('x') ? 'y' : 'x'}`;
}
