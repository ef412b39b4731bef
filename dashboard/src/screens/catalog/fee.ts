/**
 * A price component's fee as the editor holds it (every input a string, every list present) and
 * its conversions to and from the API's `fee` object (docs/catalog-plans-addons.md): only the
 * fields of the fee type and pricing model are sent.
 */
import type { CreatePlanData } from '../../../../sdk/src/index';

export type ApiFee = CreatePlanData['body']['components'][number]['fee'];
export type FeeType = NonNullable<ApiFee['type']>;
export type Term = 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';
export type PricingModel = 'PER_UNIT' | 'TIERED' | 'VOLUME' | 'PACKAGE' | 'MATRIX';

export const TERMS: Term[] = ['MONTHLY', 'QUARTERLY', 'SEMIANNUAL', 'ANNUAL'];
export const PRICING_MODELS: { value: PricingModel; label: string }[] = [
  { value: 'PER_UNIT', label: 'Per unit' },
  { value: 'TIERED', label: 'Tiered (each tier its own rate)' },
  { value: 'VOLUME', label: 'Volume (one rate for all units)' },
  { value: 'PACKAGE', label: 'Package (per block of units)' },
  { value: 'MATRIX', label: 'Matrix (per dimension value)' },
];

export interface Tier { first_unit: number | string; rate: string; flat_fee: string; flat_cap: string }
export interface MatrixRate { dimension1: { key: string; value: string }; dimension2: { key: string; value: string }; per_unit_price: string }
export interface Threshold { included_amount: number | string; price: string; per_unit_overage: string }

export interface FeeForm {
  type: FeeType;
  rates: { term: Term; price: string }[];
  slot_unit_name: string;
  minimum_count: number | string;
  quota: number | string;
  metric_id: string;
  thresholds: Threshold[];
  cadence: Term;
  pricing: { type: PricingModel; rate: string; tiers: Tier[]; block_size: number | string; rounding: 'UP' | 'DOWN'; rates: MatrixRate[] };
  unit_price: string;
  quantity: number | string;
  billing_type: 'ADVANCE' | 'ARREARS';
}

export const emptyTier = (first_unit: number | string = 0): Tier => ({ first_unit, rate: '', flat_fee: '', flat_cap: '' });
export const emptyMatrixRate = (): MatrixRate => ({ dimension1: { key: '', value: '' }, dimension2: { key: '', value: '' }, per_unit_price: '' });
export const emptyThreshold = (): Threshold => ({ included_amount: '', price: '', per_unit_overage: '' });

export function emptyFee(type: FeeType = 'RATE'): FeeForm {
  return {
    type,
    rates: [{ term: 'MONTHLY', price: '' }],
    slot_unit_name: '',
    minimum_count: '',
    quota: '',
    metric_id: '',
    thresholds: [emptyThreshold()],
    cadence: 'MONTHLY',
    pricing: { type: 'PER_UNIT', rate: '', tiers: [emptyTier(0)], block_size: '', rounding: 'UP', rates: [emptyMatrixRate()] },
    unit_price: '',
    quantity: 1,
    billing_type: 'ADVANCE',
  };
}

const num = (value: number | string): number | null => (typeof value === 'number' ? value : value.trim() === '' ? null : Number(value));
const text = (value: string | null | undefined): string | null => (value === null || value === undefined || value.trim() === '' ? null : value.trim());

function pricingBody(p: FeeForm['pricing']): NonNullable<ApiFee['pricing']> {
  switch (p.type) {
    case 'PER_UNIT':
      return { type: 'PER_UNIT', rate: p.rate };
    case 'TIERED':
    case 'VOLUME':
      return {
        type: p.type,
        tiers: p.tiers.map((t) => ({ first_unit: num(t.first_unit) ?? 0, rate: t.rate, flat_fee: text(t.flat_fee), flat_cap: text(t.flat_cap) })),
        ...(num(p.block_size) !== null ? { block_size: num(p.block_size) } : {}),
      };
    case 'PACKAGE':
      return { type: 'PACKAGE', rate: p.rate, block_size: num(p.block_size), rounding: p.rounding };
    case 'MATRIX':
      return {
        type: 'MATRIX',
        rates: p.rates.map((r) => ({
          dimension1: r.dimension1,
          dimension2: r.dimension2.key.trim() ? r.dimension2 : null,
          per_unit_price: r.per_unit_price,
        })),
      };
  }
}

/** The API's `fee` of what the editor holds. */
export function feeBody(f: FeeForm): ApiFee {
  switch (f.type) {
    case 'RATE':
      return { type: 'RATE', rates: f.rates };
    case 'SLOT':
      return { type: 'SLOT', rates: f.rates, slot_unit_name: f.slot_unit_name, minimum_count: num(f.minimum_count), quota: num(f.quota), upgrade_policy: 'PRORATED', downgrade_policy: 'REMOVE_AT_END_OF_PERIOD' };
    case 'CAPACITY':
      return { type: 'CAPACITY', metric_id: f.metric_id, cadence: f.cadence, thresholds: f.thresholds.map((t) => ({ included_amount: num(t.included_amount) ?? 0, price: t.price, per_unit_overage: t.per_unit_overage })) };
    case 'USAGE':
      return { type: 'USAGE', metric_id: f.metric_id, cadence: f.cadence, pricing: pricingBody(f.pricing) };
    case 'EXTRA_RECURRING':
      return { type: 'EXTRA_RECURRING', unit_price: f.unit_price, quantity: num(f.quantity) ?? 1, billing_type: f.billing_type, cadence: f.cadence };
    case 'ONE_TIME':
      return { type: 'ONE_TIME', unit_price: f.unit_price, quantity: num(f.quantity) ?? 1 };
  }
}

/** What the editor holds for a fee the API returned (a new version starts from the current one). */
export function feeForm(api: ApiFee): FeeForm {
  const base = emptyFee(api.type ?? 'RATE');
  const p = api.pricing;
  return {
    ...base,
    rates: api.rates?.map((r) => ({ term: r.term ?? 'MONTHLY', price: r.price })) ?? base.rates,
    slot_unit_name: api.slot_unit_name ?? '',
    minimum_count: api.minimum_count ?? '',
    quota: api.quota ?? '',
    metric_id: api.metric_id ?? '',
    thresholds: api.thresholds?.map((t) => ({ ...t })) ?? base.thresholds,
    cadence: api.cadence ?? 'MONTHLY',
    pricing: p
      ? {
          type: p.type ?? 'PER_UNIT',
          rate: p.rate ?? '',
          tiers: p.tiers?.map((t) => ({ first_unit: t.first_unit, rate: t.rate, flat_fee: t.flat_fee ?? '', flat_cap: t.flat_cap ?? '' })) ?? base.pricing.tiers,
          block_size: p.block_size ?? '',
          rounding: p.rounding ?? 'UP',
          rates: p.rates?.map((r) => ({ dimension1: r.dimension1, dimension2: r.dimension2 ?? { key: '', value: '' }, per_unit_price: r.per_unit_price })) ?? base.pricing.rates,
        }
      : base.pricing,
    unit_price: api.unit_price ?? '',
    quantity: api.quantity ?? 1,
    billing_type: api.billing_type ?? 'ADVANCE',
  };
}

/** One line saying what a fee charges, for lists and the plan page. */
export function feeSummary(f: ApiFee): string {
  const rates = (f.rates ?? []).map((r) => `${r.price} ${(r.term ?? 'MONTHLY').toLowerCase()}`).join(', ');
  switch (f.type) {
    case 'RATE':
      return rates;
    case 'SLOT':
      return `${rates} per ${f.slot_unit_name ?? 'slot'}`;
    case 'CAPACITY':
      return `${f.thresholds?.length ?? 0} threshold(s), ${(f.cadence ?? 'MONTHLY').toLowerCase()}`;
    case 'USAGE': {
      const p = f.pricing;
      if (!p) return 'usage';
      if (p.type === 'PER_UNIT' || p.type === 'PACKAGE') return `${p.type.toLowerCase().replace('_', ' ')} ${p.rate}${p.block_size ? ` per ${p.block_size}` : ''}`;
      if (p.type === 'MATRIX') return `matrix, ${p.rates?.length ?? 0} rate(s)`;
      return `${(p.type ?? '').toLowerCase()}, ${p.tiers?.length ?? 0} tier(s)`;
    }
    case 'EXTRA_RECURRING':
      return `${f.unit_price} × ${f.quantity ?? 1}, ${(f.cadence ?? 'MONTHLY').toLowerCase()}`;
    case 'ONE_TIME':
      return `${f.unit_price} × ${f.quantity ?? 1}, once`;
    default:
      return '';
  }
}

/** A new component's fee takes its product's metric, pricing model and billing type. */
export function productDefaults(structure: unknown, fee: FeeForm): Partial<FeeForm> {
  const s = structure as { metric_id?: string; model?: PricingModel; billing_type?: 'ADVANCE' | 'ARREARS' };
  return {
    metric_id: s.metric_id ?? fee.metric_id,
    pricing: { ...fee.pricing, type: s.model ?? fee.pricing.type },
    billing_type: s.billing_type ?? fee.billing_type,
  };
}
