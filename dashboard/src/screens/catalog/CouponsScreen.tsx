import { NumberInput, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { createCoupon, type CreateCouponData, updateCoupon } from '../../../../sdk/src/index';
import { DataTable } from '../../components/DataTable';
import { EmptyState } from '../../components/EmptyState';
import { FormError, useApiForm } from '../../components/forms';
import { PageHeader } from '../../components/PageHeader';
import { QueryState } from '../../components/QueryState';
import { date, money } from '../../components/format';
import { keys, useCatalogClient } from './client';
import { EditDetails } from './EditDetails';
import { optional } from './form';
import { CreateButton, FormButtons, FormStack, StatusBadge, EditButton } from './parts';
import { useCoupons } from './queries';

type DiscountType = CreateCouponData['body']['discount']['type'];

function NewCoupon({ close }: { close: () => void }) {
  const client = useCatalogClient();
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: {
      code: '',
      description: '',
      discount: { type: 'PERCENTAGE' as DiscountType, percentage: '', amount: '', currency: '' },
      redemption_limit: '' as number | string,
      recurring_value: '' as number | string,
    },
    submit: async (v) => {
      const d = v.discount;
      const body: CreateCouponData['body'] = {
        code: v.code,
        description: optional(v.description) ?? null,
        discount: d.type === 'PERCENTAGE' ? { type: 'PERCENTAGE', percentage: d.percentage } : { type: 'FIXED', amount: d.amount, currency: d.currency },
        redemption_limit: typeof v.redemption_limit === 'number' ? v.redemption_limit : null,
        recurring_value: typeof v.recurring_value === 'number' ? v.recurring_value : null,
      };
      return (await createCoupon({ client, body, throwOnError: true })).data;
    },
    invalidates: [keys.coupons],
    onDone: close,
  });
  const type = form.getValues().discount.type;
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      <TextInput label="Code" required data-autofocus description="What customers enter, e.g. LAUNCH20" {...form.getInputProps('code')} />
      <TextInput label="Description" {...form.getInputProps('description')} />
      <Stack gap={4}>
        <Text size="sm" fw={500} id="discount-type">
          Discount
        </Text>
        <SegmentedControl
          aria-labelledby="discount-type"
          data={[
            { value: 'PERCENTAGE', label: 'Percentage' },
            { value: 'FIXED', label: 'Fixed amount' },
          ]}
          {...form.getInputProps('discount.type')}
        />
      </Stack>
      {type === 'PERCENTAGE' ? (
        <TextInput label="Percentage" required description='Whole percent as a decimal, e.g. "20" for 20 %' {...form.getInputProps('discount.percentage')} />
      ) : (
        <>
          <TextInput label="Amount" required description='A decimal, e.g. "10.00"' {...form.getInputProps('discount.amount')} />
          <TextInput label="Currency" required description="ISO 4217, e.g. USD" {...form.getInputProps('discount.currency')} />
        </>
      )}
      <NumberInput label="Redemption limit" description="Optional: how many times it can be redeemed in all" min={1} allowDecimal={false} {...form.getInputProps('redemption_limit')} />
      <NumberInput label="Billing periods" description="Optional: how many periods it applies to; empty is forever" min={1} allowDecimal={false} {...form.getInputProps('recurring_value')} />
      <FormButtons pending={mutation.isPending} onCancel={close} />
    </FormStack>
  );
}

type Discount = { type: DiscountType; percentage?: string; amount?: string; currency?: string };
const discountText = (d: Discount) => (d.type === 'PERCENTAGE' ? `${d.percentage} %` : money(d.amount, d.currency));

export default function CouponsScreen() {
  const client = useCatalogClient();
  const coupons = useCoupons();
  const create = (
    <CreateButton label="New coupon" title="New coupon">
      {(close) => <NewCoupon close={close} />}
    </CreateButton>
  );
  return (
    <>
      <PageHeader title="Coupons" description="Discounts customers redeem on their subscriptions." actions={create} />
      <QueryState query={coupons}>
        {(rows) => (
          <DataTable
            caption="Coupons"
            rows={rows}
            rowKey={(r) => r.id}
            columns={[
              { header: 'Code', render: (r) => <code>{r.code}</code> },
              { header: 'Discount', render: (r) => discountText(r.discount as Discount) },
              { header: 'Redeemed', render: (r) => `${r.redemption_count}${r.redemption_limit ? ` of ${r.redemption_limit}` : ''}`, numeric: true },
              { header: 'Expires', render: (r) => date(r.expires_at) },
              { header: 'Status', render: (r) => <StatusBadge status={r.archived_at ? 'ARCHIVED' : r.disabled ? 'DISABLED' : 'ACTIVE'} /> },
              {
                header: 'Actions',
                render: (r) => (
                  <EditButton what={r.code} title={`Edit coupon ${r.code}`}>
                    {(close) => (
                      <EditDetails
                        current={{ description: r.description ?? null }}
                        update={(body) => updateCoupon({ client, path: { coupon_id: r.id }, body, throwOnError: true })}
                        invalidates={[keys.coupons]}
                        close={close}
                      />
                    )}
                  </EditButton>
                ),
              },
            ]}
            empty={<EmptyState title="No coupons yet">Create a coupon ("New coupon"): a percentage or a fixed amount off, then apply it to a subscription.</EmptyState>}
          />
        )}
      </QueryState>
    </>
  );
}
