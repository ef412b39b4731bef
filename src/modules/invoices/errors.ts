// Failures of the invoices module that callers react to. They test `kind`, never the message.
import { AppError } from '../../kernel/errors.js';

/** NEGATIVE_BALANCE: a balance move would take the customer's credit below zero (it was spent). */
export type InvoicesFailureKind = 'NEGATIVE_BALANCE';

export class InvoicesFailure extends AppError {
  constructor(
    readonly kind: InvoicesFailureKind,
    message: string,
  ) {
    super('BAD_REQUEST', message);
  }
}

export function isInvoicesFailure(error: unknown, kind: InvoicesFailureKind): error is InvoicesFailure {
  return error instanceof InvoicesFailure && error.kind === kind;
}
