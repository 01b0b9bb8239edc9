/**
 * An email address that a narrow column breaks after its "@" ("marketing.operations@" /
 * "acme-coffee-roasters.example") rather than at a hyphen or any letter: each part wraps only when it alone
 * is wider than the column. One inline element, so that a flex cell lays it out as one item, not two.
 */
export function Email({ address }: { address: string }) {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  return (
    <span>
      <span className="email-part">{address.slice(0, at + 1)}</span>
      <wbr />
      <span className="email-part">{address.slice(at + 1)}</span>
    </span>
  );
}
