-- Rate-limit counters shared by every server process (docs/api.md, "Rate limits"). One row per
-- limiter key (class and principal, client IP, hashed e-mail or hashed OAuth client id) and fixed
-- window. Each process counts in memory and adds its counts here every sync interval, reading
-- back the total of all processes, so a request never waits for this table.
-- Not tenant data: keys of sign-in and OAuth limits have no tenant. UNLOGGED because the counts
-- live seconds to a minute: they need no WAL, and after a crash the limits simply start afresh.
CREATE UNLOGGED TABLE rate_limit_windows (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  -- window end: the row is useless afterwards and is deleted by the periodic cleanup
  expires_at timestamptz NOT NULL,
  hits bigint NOT NULL CHECK (hits >= 0),
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_windows_expiry_idx ON rate_limit_windows (expires_at);
