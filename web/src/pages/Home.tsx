import { Navigate } from 'react-router';
import { PageHeader } from '../components/PageHeader';
import { useSignedIn } from '../session';

/** `/`: the first workspace's brand, or a word on how to get into one. */
export function Home() {
  const { workspaces } = useSignedIn();
  const first = workspaces[0];
  if (first !== undefined) return <Navigate to={`/w/${encodeURIComponent(first.id)}/brand`} replace />;
  return (
    <PageHeader title="No workspace yet">
      <p>
        You are not a member of any workspace. Ask a workspace owner or admin to add you, or create one with{' '}
        <code>npx brand-context workspace create</code>.
      </p>
    </PageHeader>
  );
}
