import { describe, expect, it } from 'vitest';
import { REDACTED, redactUrl } from '../../../src/http/observability.js';
import { randomToken } from '../../../src/kernel/secrets.js';

// Tokens in the shapes the portal (pt_ + 40) and express onboarding links (onb_ + 40) issue.
const portalToken = `pt_${randomToken(40)}`;
const onboardingToken = `onb_${randomToken(40)}`;

describe('redactUrl', () => {
  it.each([
    [`/portal/customer?token=${portalToken}&lang=en`, `/portal/customer?token=${REDACTED}&lang=en`],
    [`/api/v1/portal/invoices?page=0&token=${portalToken}`, `/api/v1/portal/invoices?page=0&token=${REDACTED}`],
    [`/connect/onboarding/${onboardingToken}`, `/connect/onboarding/${REDACTED}`],
    [`/connect/onboarding/${onboardingToken}?x=1`, `/connect/onboarding/${REDACTED}?x=1`],
    ['/api/v1/customers/cus_01KKRNW4G00DCDSVX0Q959VSN7', '/api/v1/customers/cus_01KKRNW4G00DCDSVX0Q959VSN7'],
  ])('%s is logged as %s', (url, logged) => {
    expect(redactUrl(url)).toBe(logged);
    expect(redactUrl(url)).not.toContain(portalToken);
    expect(redactUrl(url)).not.toContain(onboardingToken);
  });
});
