// Typed failures of the billing rules. They are AppErrors, so the HTTP edge renders them as
// {code, message} with no mapping; `rule` says which rule refused, for logs and tests.
import { AppError } from '../kernel/errors.js';

export type BillingRule =
  | 'INVALID_DATE'
  | 'INVALID_PERIOD'
  | 'INVALID_PRICING'
  | 'INVALID_QUANTITY'
  | 'INVALID_TAX'
  | 'UNKNOWN_LINE'
  | 'CREDIT_EXCEEDS_REMAINING';

export class BillingRuleError extends AppError {
  constructor(
    readonly rule: BillingRule,
    message: string,
  ) {
    // Over-crediting conflicts with the invoice's current state; the rest are bad input.
    super(rule === 'CREDIT_EXCEEDS_REMAINING' ? 'CONFLICT' : rule === 'UNKNOWN_LINE' ? 'NOT_FOUND' : 'BAD_REQUEST', message);
    this.name = 'BillingRuleError';
  }
}
