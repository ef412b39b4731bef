import { ActionIcon, Button, Group, NumberInput, Select, SimpleGrid, Stack, Table, Text, TextInput } from '@mantine/core';
import type { UseFormReturnType } from '@mantine/form';
import type { ReactNode } from 'react';

// List items are typed by the form's values; the editor is shared by forms of several shapes,
// so items go in `as never` (their shape is FeeForm's, checked in fee.ts).
import { emptyMatrixRate, emptyThreshold, emptyTier, PRICING_MODELS, TERMS, type FeeForm } from './fee';
import { options, useMetrics } from './queries';

/**
 * Edits one fee at `path` of a form (`components.0.fee`), for the fee type its product has: rates
 * per term (RATE, SLOT), thresholds (CAPACITY), a metric and a pricing model (USAGE, with tiers or
 * matrix rates edited as a table), a unit price (EXTRA_RECURRING, ONE_TIME). Input paths are the
 * API's field paths, so a refusal shows under the input it names.
 */
export function FeeEditor<V>({ form, path, fee, label }: { form: UseFormReturnType<V>; path: string; fee: FeeForm; label: string }) {
  const metrics = useMetrics();
  const input = (field: string) => form.getInputProps(`${path}.${field}`);
  const cadence = <Select label="Cadence" allowDeselect={false} data={TERMS} {...input('cadence')} />;
  switch (fee.type) {
    case 'RATE':
    case 'SLOT':
      return (
        <Stack gap="xs">
          {fee.type === 'SLOT' && (
            <SimpleGrid cols={{ base: 1, sm: 3 }}>
              <TextInput label="Slot unit name" required placeholder="seat" {...input('slot_unit_name')} />
              <NumberInput label="Minimum slots" min={0} allowDecimal={false} {...input('minimum_count')} />
              <NumberInput label="Maximum slots" min={1} allowDecimal={false} {...input('quota')} />
            </SimpleGrid>
          )}
          <RowsTable
            caption={`${label}: price per term`}
            headers={['Term', 'Price']}
            rows={fee.rates.map((_, i) => [
              <Select key="t" aria-label={`Term of rate ${i + 1}`} allowDeselect={false} data={TERMS} {...input(`rates.${i}.term`)} />,
              <TextInput key="p" aria-label={`Price of rate ${i + 1}`} placeholder="49.00" {...input(`rates.${i}.price`)} />,
            ])}
            onAdd={() => form.insertListItem(`${path}.rates`, { term: 'ANNUAL', price: '' } as never)}
            onRemove={(i) => form.removeListItem(`${path}.rates`, i)}
            addLabel="Add a term"
          />
        </Stack>
      );
    case 'CAPACITY':
      return (
        <Stack gap="xs">
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select label="Billable metric" required data={options(metrics.data)} {...input('metric_id')} />
            {cadence}
          </SimpleGrid>
          <RowsTable
            caption={`${label}: capacity thresholds`}
            headers={['Included units', 'Price', 'Per unit over']}
            rows={fee.thresholds.map((_, i) => [
              <NumberInput key="i" aria-label={`Included units of threshold ${i + 1}`} min={0} allowDecimal={false} {...input(`thresholds.${i}.included_amount`)} />,
              <TextInput key="p" aria-label={`Price of threshold ${i + 1}`} placeholder="99.00" {...input(`thresholds.${i}.price`)} />,
              <TextInput key="o" aria-label={`Per unit overage of threshold ${i + 1}`} placeholder="0.01" {...input(`thresholds.${i}.per_unit_overage`)} />,
            ])}
            onAdd={() => form.insertListItem(`${path}.thresholds`, emptyThreshold() as never)}
            onRemove={(i) => form.removeListItem(`${path}.thresholds`, i)}
            addLabel="Add a threshold"
          />
        </Stack>
      );
    case 'USAGE':
      return (
        <Stack gap="xs">
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <Select label="Billable metric" required data={options(metrics.data)} {...input('metric_id')} />
            <Select label="Pricing model" allowDeselect={false} data={PRICING_MODELS} {...input('pricing.type')} />
            {cadence}
          </SimpleGrid>
          <PricingEditor form={form} path={`${path}.pricing`} pricing={fee.pricing} label={label} />
        </Stack>
      );
    case 'EXTRA_RECURRING':
    case 'ONE_TIME':
      return (
        <SimpleGrid cols={{ base: 1, sm: fee.type === 'ONE_TIME' ? 2 : 4 }}>
          <TextInput label="Unit price" required placeholder="25.00" {...input('unit_price')} />
          <NumberInput label="Quantity" min={1} allowDecimal={false} {...input('quantity')} />
          {fee.type === 'EXTRA_RECURRING' && (
            <>
              <Select label="Billed" allowDeselect={false} data={[{ value: 'ADVANCE', label: 'In advance' }, { value: 'ARREARS', label: 'In arrears' }]} {...input('billing_type')} />
              {cadence}
            </>
          )}
        </SimpleGrid>
      );
  }
}

function PricingEditor<V>({ form, path, pricing, label }: { form: UseFormReturnType<V>; path: string; pricing: FeeForm['pricing']; label: string }) {
  const input = (field: string) => form.getInputProps(`${path}.${field}`);
  switch (pricing.type) {
    case 'PER_UNIT':
      return <TextInput label="Price per unit" required placeholder="0.002" {...input('rate')} />;
    case 'PACKAGE':
      return (
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          <TextInput label="Price per block" required placeholder="5.00" {...input('rate')} />
          <NumberInput label="Units per block" required min={1} allowDecimal={false} {...input('block_size')} />
          <Select label="A partial block counts" allowDeselect={false} data={[{ value: 'UP', label: 'As a whole block' }, { value: 'DOWN', label: 'Not at all' }]} {...input('rounding')} />
        </SimpleGrid>
      );
    case 'TIERED':
    case 'VOLUME':
      return (
        <RowsTable
          caption={`${label}: tiers (${pricing.type === 'TIERED' ? 'each unit at its tier\u2019s rate' : 'all units at the rate of the tier the total reaches'})`}
          headers={['From unit', 'Rate per unit', 'Flat fee', 'Flat cap']}
          rows={pricing.tiers.map((_, i) => [
            <NumberInput key="f" aria-label={`First unit of tier ${i + 1}`} min={0} allowDecimal={false} {...input(`tiers.${i}.first_unit`)} />,
            <TextInput key="r" aria-label={`Rate of tier ${i + 1}`} placeholder="0.01" {...input(`tiers.${i}.rate`)} />,
            <TextInput key="ff" aria-label={`Flat fee of tier ${i + 1}`} placeholder="optional" {...input(`tiers.${i}.flat_fee`)} />,
            <TextInput key="fc" aria-label={`Flat cap of tier ${i + 1}`} placeholder="optional" {...input(`tiers.${i}.flat_cap`)} />,
          ])}
          onAdd={() => form.insertListItem(`${path}.tiers`, emptyTier('') as never)}
          onRemove={(i) => form.removeListItem(`${path}.tiers`, i)}
          addLabel="Add a tier"
        />
      );
    case 'MATRIX':
      return (
        <RowsTable
          caption={`${label}: price per dimension value`}
          headers={['Dimension 1 key', 'Value', 'Dimension 2 key', 'Value', 'Price per unit']}
          rows={pricing.rates.map((_, i) => [
            <TextInput key="k1" aria-label={`Dimension 1 key of rate ${i + 1}`} placeholder="region" {...input(`rates.${i}.dimension1.key`)} />,
            <TextInput key="v1" aria-label={`Dimension 1 value of rate ${i + 1}`} placeholder="eu" {...input(`rates.${i}.dimension1.value`)} />,
            <TextInput key="k2" aria-label={`Dimension 2 key of rate ${i + 1}`} placeholder="optional" {...input(`rates.${i}.dimension2.key`)} />,
            <TextInput key="v2" aria-label={`Dimension 2 value of rate ${i + 1}`} placeholder="optional" {...input(`rates.${i}.dimension2.value`)} />,
            <TextInput key="p" aria-label={`Price per unit of rate ${i + 1}`} placeholder="0.01" {...input(`rates.${i}.per_unit_price`)} />,
          ])}
          onAdd={() => form.insertListItem(`${path}.rates`, emptyMatrixRate() as never)}
          onRemove={(i) => form.removeListItem(`${path}.rates`, i)}
          addLabel="Add a rate"
        />
      );
  }
}

/** Rows of inputs as a Mantine table, with a button to add a row and one per row to remove it. */
function RowsTable({ caption, headers, rows, onAdd, onRemove, addLabel }: { caption: string; headers: string[]; rows: ReactNode[][]; onAdd: () => void; onRemove: (index: number) => void; addLabel: string }) {
  return (
    <Stack gap={4}>
      <Table captionSide="top" verticalSpacing={4}>
        <Table.Caption>
          <Text size="sm" ta="left" c="gray.8">
            {caption}
          </Text>
        </Table.Caption>
        <Table.Thead>
          <Table.Tr>
            {headers.map((h) => (
              <Table.Th key={h} scope="col">
                {h}
              </Table.Th>
            ))}
            <Table.Th scope="col">
              <span className="sr-only" style={{ position: 'absolute', width: 1, height: 1, overflow: 'hidden', clip: 'rect(0 0 0 0)' }}>
                Remove
              </span>
            </Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((cells, i) => (
            <Table.Tr key={i}>
              {cells.map((cell, j) => (
                <Table.Td key={j}>{cell}</Table.Td>
              ))}
              <Table.Td>
                <ActionIcon variant="subtle" color="red" aria-label={`Remove row ${i + 1}`} disabled={rows.length === 1} onClick={() => onRemove(i)}>
                  ×
                </ActionIcon>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <Group>
        <Button variant="subtle" size="xs" onClick={onAdd}>
          {addLabel}
        </Button>
      </Group>
    </Stack>
  );
}
