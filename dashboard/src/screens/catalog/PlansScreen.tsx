import { Anchor, Button } from '@mantine/core';
import { Link } from 'react-router';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { date } from '../../components/format';
import { StatusBadge } from './parts';
import { usePlans } from './queries';

export default function PlansScreen() {
  const plans = usePlans();
  const create = (
    <Button component={Link} to="/catalog/plans/new">
      New plan
    </Button>
  );
  return (
    <>
      <PageHeader title="Plans" description="What customers subscribe to: price components on products, in versions you publish." actions={create} />
      <QueryState query={plans}>
        {(rows) => (
          <DataTable
            caption="Plans"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              {
                header: 'Name',
                render: (r) => (
                  <Anchor component={Link} to={`/catalog/plans/${r.id}`}>
                    {r.name}
                  </Anchor>
                ),
              },
              { header: 'Status', render: (r) => <StatusBadge status={r.status} /> },
              { header: 'Version', render: (r) => `${r.version}${r.is_draft ? ' (draft)' : ''}`, numeric: true },
              { header: 'Currency', render: (r) => r.currency },
              { header: 'Components', render: (r) => r.price_components.length, numeric: true },
              { header: 'Product family', render: (r) => r.product_family.name },
              { header: 'Created', render: (r) => date(r.created_at) },
            ]}
            empty={
              <EmptyState
                title="No plans yet"
                action={
                  <Button component={Link} to="/catalog/plans/new" variant="light">
                    Create a plan
                  </Button>
                }
              >
                A plan prices your products. You need a product family and a product first (Catalog → Products); then create a plan and publish it.
              </EmptyState>
            }
          />
        )}
      </QueryState>
    </>
  );
}
