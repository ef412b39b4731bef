import { MultiSelect, Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { listCustomers } from '@tally-billing/sdk';
import { client } from '../../app/client';

/**
 * Filter by customer: a searchable list fed by the API's customer search (part of the name,
 * alias or e-mail), so it works with any number of customers. `value` is the customer id.
 */
export function CustomerFilter({ value, onChange }: { value: string | null; onChange: (customerId: string | null) => void }) {
  const [search, setSearch] = useState('');
  const [term] = useDebouncedValue(search.trim(), 250);
  const customers = useQuery({
    queryKey: ['customers', 'list', term, 0, 'picker'],
    queryFn: async () => (await listCustomers({ client, query: { search: term || undefined, per_page: 20 } })).data!.data,
    placeholderData: keepPreviousData,
  });
  const [chosen, setChosen] = useState<{ value: string; label: string }>();
  const data = (customers.data ?? []).map((c) => ({ value: c.id, label: c.alias ? `${c.name} (${c.alias})` : c.name }));
  // Keep the chosen customer selectable while another search is typed.
  if (chosen && !data.some((d) => d.value === chosen.value)) data.unshift(chosen);
  return (
    <Select
      label="Customer"
      placeholder="All customers"
      searchable
      clearable
      w={260}
      data={data}
      value={value}
      searchValue={search}
      onSearchChange={setSearch}
      filter={({ options }) => options}
      nothingFoundMessage={customers.isFetching ? 'Searching…' : 'No customer matches'}
      onChange={(id, option) => {
        setChosen(id && option ? option : undefined);
        onChange(id);
      }}
    />
  );
}

/** Filter by one or more statuses (the API's `statuses`). */
export function StatusFilter({ statuses, value, onChange }: { statuses: string[]; value: string[]; onChange: (statuses: string[]) => void }) {
  return (
    <MultiSelect
      label="Status"
      placeholder={value.length ? undefined : 'Any status'}
      w={300}
      clearable
      data={statuses.map((s) => ({ value: s, label: s.toLowerCase().replace('_', ' ') }))}
      value={value}
      onChange={onChange}
    />
  );
}
