import { Fragment } from 'react';

/**
 * An email address that a narrow column may break after its "@" or before a dot, rather than at any
 * letter: "marketing.operations@" / "acme-coffee-roasters.example".
 */
export function Email({ address }: { address: string }) {
  const parts = address.split(/(?=\.)|(?<=@)/);
  return (
    <>
      {parts.map((part, index) => (
        <Fragment key={index}>
          {index > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
