import { Link } from 'react-router';
import { PageHeader } from '../components/PageHeader';

export function NotFound() {
  return (
    <PageHeader title="Page not found">
      <p>
        There is nothing at this address. <Link to="/">Go to your workspace</Link>.
      </p>
    </PageHeader>
  );
}
