import { Alert } from '@mantine/core';
import { useForm, type UseFormReturnType } from '@mantine/form';
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { fieldOfError, toApiError, type ApiError } from '../app/api';

/**
 * A form whose submit calls the API: the API's refusal is shown next to the field its message
 * names (`name is required (body)` under the Name input, nested paths such as
 * `components[0].fee.pricing.rate` included), or above the form when it names none.
 * On success the listed queries are refetched and `onDone` gets the answer.
 */
export function useApiForm<Values extends Record<string, unknown>, Result>(options: {
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
      const field = fieldOfError(apiError.message, form.getValues());
      if (field) {
        setFormError(undefined);
        form.setFieldError(field, apiError.message);
      } else setFormError(apiError);
    },
  });
  const onSubmit = form.onSubmit((values) => {
    form.clearErrors();
    mutation.mutate(values);
  });
  return { form, onSubmit, mutation, formError };
}

/** The error of a form that names no field of it. */
export function FormError({ error }: { error: ApiError | undefined }) {
  if (!error) return null;
  return (
    <Alert color="red" role="alert" title="Not saved">
      {error.message}
    </Alert>
  );
}
