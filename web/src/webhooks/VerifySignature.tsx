import { CodeBlock } from '../components/CodeBlock';

const SNIPPET = [
  "import { Webhook } from 'standardwebhooks';",
  '',
  'const wh = new Webhook(process.env.WEBHOOK_SECRET); // whsec_…',
  'const event = wh.verify(rawBody, request.headers); // throws if the signature is wrong',
].join('\n');

/** How a receiver checks a delivery (Standard Webhooks), in Node with the standardwebhooks package. */
export function VerifySignature() {
  return (
    <section className="section">
      <h2>Verify the signature</h2>
      <p className="section-description">
        Every delivery carries <code>webhook-id</code>, <code>webhook-timestamp</code> and{' '}
        <code>webhook-signature</code> headers (Standard Webhooks). Verify the raw body, exactly as received,
        before you parse it; a retry repeats the same <code>webhook-id</code>, so use it to skip events you
        have already handled. In Node, with the <code>standardwebhooks</code> package:
      </p>
      <CodeBlock label="Verify a webhook signature in Node">{SNIPPET}</CodeBlock>
    </section>
  );
}
