import { Textarea, TextInput } from '@mantine/core';
import type { QueryKey } from '@tanstack/react-query';
import { FormError, useApiForm } from '../../components/forms';
import { optional } from './form';
import { FormButtons, FormStack } from './parts';

/** What every editable catalog object has: a name (coupons have none) and a description. */
export interface Details {
  name?: string;
  description: string | null;
}

/**
 * The edit form of a catalog object's name and description (the fields every update operation of
 * the catalog takes; docs/dashboard.md, "Catalog"). `update` sends them; an empty description
 * clears it. The API's refusal shows under the field it names, as in the create forms.
 */
export function EditDetails({ current, update, invalidates, close }: { current: Details; update: (body: Details) => Promise<unknown>; invalidates: readonly QueryKey[]; close: () => void }) {
  const named = current.name !== undefined;
  const { form, onSubmit, mutation, formError } = useApiForm({
    initialValues: { name: current.name ?? '', description: current.description ?? '' },
    submit: (v) => update({ ...(named ? { name: v.name.trim() } : {}), description: optional(v.description) ?? null }),
    invalidates,
    onDone: close,
  });
  return (
    <FormStack onSubmit={onSubmit}>
      <FormError error={formError} />
      {named && <TextInput label="Name" required data-autofocus {...form.getInputProps('name')} />}
      <Textarea label="Description" autosize minRows={2} data-autofocus={named ? undefined : true} {...form.getInputProps('description')} />
      <FormButtons pending={mutation.isPending} label="Save" onCancel={close} />
    </FormStack>
  );
}
