import { useQuery } from '@tanstack/react-query';
import { listAddons, listCoupons, listFeatures, listMetrics, listPlans, listProductFamilies, listProducts } from '../../../../sdk/src/index';
import { keys, PAGE, useCatalogClient } from './client';

/** The catalog lists, each one query shared by the screens and the pickers that need it. */
export function useFamilies() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.families, queryFn: async () => (await listProductFamilies({ client, query: PAGE, throwOnError: true })).data.data });
}

export function useProducts() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.products, queryFn: async () => (await listProducts({ client, query: PAGE, throwOnError: true })).data.data });
}

export function useMetrics() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.metrics, queryFn: async () => (await listMetrics({ client, query: PAGE, throwOnError: true })).data.data });
}

export function useFeatures() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.features, queryFn: async () => (await listFeatures({ client, query: PAGE, throwOnError: true })).data.data });
}

export function useCoupons() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.coupons, queryFn: async () => (await listCoupons({ client, query: { ...PAGE, filter: 'ALL' }, throwOnError: true })).data.data });
}

export function usePlans() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.plans, queryFn: async () => (await listPlans({ client, query: PAGE, throwOnError: true })).data.data });
}

export function useAddons() {
  const client = useCatalogClient();
  return useQuery({ queryKey: keys.addons, queryFn: async () => (await listAddons({ client, query: { ...PAGE, include_archived: true }, throwOnError: true })).data.data });
}

/** Select options of a list: value the id, label the name. */
export function options(rows: { id: string; name: string }[] | undefined) {
  return (rows ?? []).map((row) => ({ value: row.id, label: row.name }));
}
