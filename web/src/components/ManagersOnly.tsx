import { PageHeader } from './PageHeader';

interface ManagersOnlyProps {
  title: string;
  eyebrow?: string;
  /** What the page is for, as owners and admins are told it. */
  lead?: string;
  /** Who may use it: "Only owners and admins manage webhooks." */
  notice: string;
}

/**
 * What a member sees of a page only owners and admins may use: its title, what it is for, and a calm
 * note of who may use it. The page asks the API nothing, which would only answer 403 with a permission
 * name the member has no use for.
 */
export function ManagersOnly({ title, eyebrow, lead, notice }: ManagersOnlyProps) {
  return (
    <>
      <PageHeader title={title} {...(eyebrow !== undefined && { eyebrow })}>
        {lead !== undefined && <p className="lead">{lead}</p>}
      </PageHeader>
      <p className="callout">{notice}</p>
    </>
  );
}
