import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { toApiError, type ApiError } from '../../app/api';

/**
 * The form path (Mantine's `components.0.fee.pricing.rate`) of the field an API message names:
 * messages start with the body path (`components[0].fee.pricing.rate must be ...`). The deepest
 * part of that path the form holds a plain value at wins; undefined when the message names no
 * field of the form (then the error is shown above it).
 */
export function formPathOfError(message: string, values: unknown): string | undefined {
  const apiPath = message.split(' ')[0] ?? '';
  const parts = apiPath.replace(/\[(\d+)\]/g, '.$1').split('.').filter(Boolean);
  let node: unknown = values;
  let found: string | undefined;
  for (let i = 0; i < parts.length; i += 1) {
    if (node === null || typeof node !== 'object' || !(parts[i]! in node)) break;
    node = (node as Record<string, unknown>)[parts[i]!];
    if (node === null || typeof node !== 'object') found = parts.slice(0, i + 1).join('.');
  }
  return found;
}

/**
 * A catalog form (nested values allowed) whose submit calls the API; a refusal lands under the
 * input the message names, or in `formError`. On success the listed queries are refetched.
 */
export function useCatalogForm<Values extends Record<string, unknown>, Result>(options: {
  initialValues: Values;
  submit: (values: Values) => Promise<Result>;
  invalidates?: readonly QueryKey[];
  onDone?: (result: Result, form: UseFormReturnType<Values>) => void;
}) {
  const queryClient = useQueryClient();
  const form = useForm<Values>({ mode: 'controlled', initialValues: options.initialValues });
  const [formError, setFormError] = useState<ApiError | undefined>();
  const mutation = useMutation({
    mutationFn: options.submit,
    onSuccess: async (result) => {
      setFormError(undefined);
      await Promise.all((options.invalidates ?? []).map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      options.onDone?.(result, form);
    },
    onError: (error) => {
      const apiError = toApiError(error);
      const path = formPathOfError(apiError.message, form.getValues());
      if (path) {
        setFormError(undefined);
        form.setFieldError(path, apiError.message);
      } else setFormError(apiError);
    },
  });
  const onSubmit = form.onSubmit((values) => {
    form.clearErrors();
    mutation.mutate(values);
  });
  return { form, onSubmit, mutation, formError };
}

/** Empty optional inputs are left out of the body rather than sent as ''. */
export function optional(value: string): string | undefined {
  return value.trim() === '' ? undefined : value.trim();
}
