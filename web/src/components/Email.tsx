/**
 * An email address that a narrow column breaks after its "@" ("marketing.operations@" /
 * "acme-coffee-roasters.example") rather than at any letter.
 */
export function Email({ address }: { address: string }) {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  return (
    <>
      {address.slice(0, at + 1)}
      <wbr />
      {address.slice(at + 1)}
    </>
  );
}
